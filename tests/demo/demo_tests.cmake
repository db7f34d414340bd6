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
    # Debug views, a camera pose and named run options as the command line spells them are taken.
    add_test(NAME demo.headless_views_camera_options
             COMMAND ${SHATTER_DEMO_CHECK} --xvfb-run ${XVFB_RUN} --demo $<TARGET_FILE:shatter_demo>
                     --out ${SHATTER_DEMO_TEST_DIR}/views -- --scene bricks --frames 10
                     --view contacts,spheres:6,slice:y,colors --view tets --camera 35,45,1.8,0,0.05,0
                     --collision hull --contacts FULL)
    set_tests_properties(demo.headless_views_camera_options PROPERTIES TIMEOUT 120 LABELS demo)
    # The stats file is JSON whatever the strings in it: a scene file (given by path) whose name has quotes,
    # a backslash, a tab and non-ASCII letters, and a missing mesh whose path has quotes and an accent.
    add_test(NAME demo.headless_stats_json_strings
             COMMAND ${SHATTER_DEMO_CHECK} --xvfb-run ${XVFB_RUN} --demo $<TARGET_FILE:shatter_demo>
                     --out ${SHATTER_DEMO_TEST_DIR}/stats_strings --expect-mesh-error "no \"such\" mesh é.obj"
                     -- --scene ${PROJECT_SOURCE_DIR}/tests/demo/data/quoted_name.json --frames 5
                     --mesh "${SHATTER_DEMO_TEST_DIR}/no \"such\" mesh é.obj")
    set_tests_properties(demo.headless_stats_json_strings PROPERTIES TIMEOUT 120 LABELS demo)

    # Bad command lines: CLI11 rejects each with an error naming the option and the problem, and a non-zero
    # exit, before any window opens (no display needed).
    set(SHATTER_DEMO_REJECTS ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/demo/check_demo_rejects.py
                             --demo $<TARGET_FILE:shatter_demo>)
    # shatter_demo_rejects(NAME EXPECT text... ARGS demo-argument...): every text must be in the error.
    function(shatter_demo_rejects name)
        cmake_parse_arguments(PARSE_ARGV 1 REJECT "" "" "EXPECT;ARGS")
        list(TRANSFORM REJECT_EXPECT PREPEND "--expect=")
        add_test(NAME demo.rejects_${name} COMMAND ${SHATTER_DEMO_REJECTS} ${REJECT_EXPECT} -- ${REJECT_ARGS})
        set_tests_properties(demo.rejects_${name} PROPERTIES TIMEOUT 60 LABELS demo)
    endfunction()
    shatter_demo_rejects(camera_not_a_number EXPECT "--camera: \"abc\" in \"30,abc,2\" is not a finite number"
                         ARGS --camera 30,abc,2)
    shatter_demo_rejects(camera_count EXPECT "--camera: expected 3 or 6 numbers" ARGS --camera 30,30)
    shatter_demo_rejects(camera_distance EXPECT "--camera: distance must be > 0" ARGS --camera 30,30,0)
    shatter_demo_rejects(camera_pitch EXPECT "--camera: pitch must be within" ARGS --camera 30,90,2)
    shatter_demo_rejects(click_not_a_number EXPECT "--click: \"x\" in \"0.5,x\" is not a finite number"
                         ARGS --click 0.5,x)
    shatter_demo_rejects(click_count EXPECT "--click: expected X,Y" ARGS --click 0.5)
    shatter_demo_rejects(click_outside EXPECT "--click: X and Y must be within [0, 1]"
                         ARGS --click 0.5,0.5 --click 0.5,1.2)
    shatter_demo_rejects(view_unknown EXPECT "--view: unknown view \"sphere\"" ARGS --view contacts,sphere)
    shatter_demo_rejects(view_sphere_level EXPECT "--view: sphere level \"deep\"" ARGS --view spheres:deep)
    shatter_demo_rejects(view_sphere_level_range EXPECT "--view: sphere level \"15\"" ARGS --view spheres:15)
    shatter_demo_rejects(view_slice_axis EXPECT "--view: slice axis \"w\" in \"slice:w\" is not x, y or z"
                         ARGS --view slice:w)
    shatter_demo_rejects(collision_unknown
                         EXPECT "--collision: unknown value \"bvh\", expected one of shatter, gimpact, hull"
                         ARGS --collision bvh)
    shatter_demo_rejects(contacts_unknown
                         EXPECT "--contacts: unknown value \"many\", expected one of adaptive, full, fixed8"
                         ARGS --contacts many)
    # A mistyped scene is an error naming the shipped scenes, never another scene.
    shatter_demo_rejects(scene_mistyped
                         EXPECT "--scene: plats: no shipped scene of that name"
                                "shipped scenes: bricks, drop_piggies, piggy_bank, plates"
                         ARGS --scene plats)
    shatter_demo_rejects(scene_missing_file
                         EXPECT "no such file, and not a shipped scene (shipped scenes: bricks"
                         ARGS --scene ${SHATTER_DEMO_TEST_DIR}/no_such_scene.json)

    # --help lists each option's choices by name (CLI11's map display showed "{adaptive->,...}").
    add_test(NAME demo.help_lists_choices COMMAND $<TARGET_FILE:shatter_demo> --help)
    set_tests_properties(demo.help_lists_choices PROPERTIES LABELS demo
                         PASS_REGULAR_EXPRESSION "--collision ENUM:{shatter,gimpact,hull}.*--contacts ENUM:{adaptive,full,fixed8}"
                         FAIL_REGULAR_EXPRESSION "->")
endif()
