# Reproducibility of the procedural meshes: regenerating them with shatter_make_assets must give
# assets/meshes/*.obj byte for byte (the committed meshes must stay reproducible from their
# generator). One file, two roles: included by
# tests/CMakeLists.txt it registers the test; run with `cmake -P` (the test's command) it regenerates
# into OUT and compares every mesh with the committed one in REF.
set(SHATTER_PROCEDURAL_MESHES piggy_bank plate brick shelf ball)

if(NOT CMAKE_SCRIPT_MODE_FILE)
    if(TARGET shatter_make_assets)
        add_test(NAME procedural_assets_reproducible
                 COMMAND ${CMAKE_COMMAND} -DGENERATOR=$<TARGET_FILE:shatter_make_assets>
                         -DOUT=${PROJECT_BINARY_DIR}/test_scratch/procedural_assets_reproducible
                         -DREF=${PROJECT_SOURCE_DIR}/assets/meshes -P ${CMAKE_CURRENT_LIST_FILE})
        set_tests_properties(procedural_assets_reproducible PROPERTIES TIMEOUT 120)
    endif()
    return()
endif()

foreach(variable GENERATOR OUT REF)
    if(NOT DEFINED ${variable})
        message(FATAL_ERROR "make_assets.cmake: pass -D${variable}=...")
    endif()
endforeach()

file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${GENERATOR} --out ${OUT} RESULT_VARIABLE result)
if(NOT result EQUAL 0)
    message(FATAL_ERROR "shatter_make_assets failed (${result})")
endif()

set(differing "")
foreach(name ${SHATTER_PROCEDURAL_MESHES})
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/${name}.obj ${REF}/${name}.obj
                    RESULT_VARIABLE different)
    if(different)
        list(APPEND differing ${name}.obj)
    endif()
endforeach()
if(differing)
    message(FATAL_ERROR "regenerated meshes differ from the committed ones: ${differing}\n"
                        "If the change is intended, run: shatter_make_assets --out ${REF}")
endif()
message(STATUS "all ${SHATTER_PROCEDURAL_MESHES} reproduced byte for byte")
