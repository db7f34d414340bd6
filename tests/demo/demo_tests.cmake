# The demo's tests, included from tests/CMakeLists.txt when shatter_demo is built. They run the real
# programs under xvfb-run (Mesa's llvmpipe) and check their output; small frame counts keep the whole set
# well under a minute and a half on two cores.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
find_program(XVFB_RUN xvfb-run REQUIRED)
set(SHATTER_DEMO_TEST_DIR ${PROJECT_BINARY_DIR}/demo_test_output)
set(SHATTER_XVFB ${XVFB_RUN} -a -s "-screen 0 1280x1024x24")

# Renderer alone: ObjectState fragment meshes of an analytically broken brick.
add_executable(shatter_demo_render_check ${PROJECT_SOURCE_DIR}/tests/demo/render_check.cpp)
target_link_libraries(shatter_demo_render_check PRIVATE shatter_demo_gfx shatter_test_support)
set_target_properties(shatter_demo_render_check PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/demo/app)
shatter_set_warnings(shatter_demo_render_check)
add_test(NAME demo.render_fragments
         COMMAND ${SHATTER_XVFB} $<TARGET_FILE:shatter_demo_render_check> ${SHATTER_DEMO_TEST_DIR}/render_check.png)
set_tests_properties(demo.render_fragments PROPERTIES TIMEOUT 120 LABELS demo)

if(TARGET shatter_demo)
    set(SHATTER_DEMO_CHECK ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/demo/check_demo_run.py)
    # Each paper scene renders a non-blank picture.
    foreach(scene piggy_bank bricks plates)
        add_test(NAME demo.headless_${scene}
                 COMMAND ${SHATTER_DEMO_CHECK} --xvfb-run ${XVFB_RUN} --demo $<TARGET_FILE:shatter_demo>
                         --out ${SHATTER_DEMO_TEST_DIR}/${scene} -- --scene ${scene} --frames 15)
        set_tests_properties(demo.headless_${scene} PROPERTIES TIMEOUT 120 LABELS demo)
    endforeach()
    # Plates: scripted ball drops break plates; the stats must show more fragments than at the start.
    add_test(NAME demo.headless_plates_ball_drops
             COMMAND ${SHATTER_DEMO_CHECK} --xvfb-run ${XVFB_RUN} --demo $<TARGET_FILE:shatter_demo>
                     --out ${SHATTER_DEMO_TEST_DIR}/plates_drops --expect-more-fragments
                     -- --scene plates --frames 30 --drop-balls 2)
    set_tests_properties(demo.headless_plates_ball_drops PROPERTIES TIMEOUT 180 LABELS demo)
    # A bad --mesh: the error is logged and shown, the demo keeps running and still writes its picture.
    add_test(NAME demo.headless_bad_mesh
             COMMAND ${SHATTER_DEMO_CHECK} --xvfb-run ${XVFB_RUN} --demo $<TARGET_FILE:shatter_demo>
                     --out ${SHATTER_DEMO_TEST_DIR}/bad_mesh --expect-mesh-error open_box.obj
                     -- --scene plates --frames 10 --mesh ${PROJECT_SOURCE_DIR}/tests/data/bad/open_box.obj)
    set_tests_properties(demo.headless_bad_mesh PROPERTIES TIMEOUT 120 LABELS demo)
    # A good --mesh is validated, built and dropped in: one more body than the scene's (the piggy bank does
    # not reach the ground in 15 frames, so nothing else adds fragments), and no errors.
    add_test(NAME demo.headless_user_mesh
             COMMAND ${SHATTER_DEMO_CHECK} --xvfb-run ${XVFB_RUN} --demo $<TARGET_FILE:shatter_demo>
                     --out ${SHATTER_DEMO_TEST_DIR}/user_mesh --expect-more-fragments
                     -- --scene piggy_bank --frames 15 --mesh ${PROJECT_SOURCE_DIR}/assets/meshes/ball.obj)
    set_tests_properties(demo.headless_user_mesh PROPERTIES TIMEOUT 120 LABELS demo)
    # Clicks go through the same picking as the mouse: two clicks on the piggy-bank scene drop two balls.
    add_test(NAME demo.headless_click_drops_balls
             COMMAND ${SHATTER_DEMO_CHECK} --xvfb-run ${XVFB_RUN} --demo $<TARGET_FILE:shatter_demo>
                     --out ${SHATTER_DEMO_TEST_DIR}/clicks --expect-balls 2
                     -- --scene piggy_bank --frames 15 --click 0.5,0.5 --click 0.6,0.7)
    set_tests_properties(demo.headless_click_drops_balls PROPERTIES TIMEOUT 120 LABELS demo)
endif()
