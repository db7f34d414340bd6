# The installed package works for a user: install this build tree into a scratch prefix with
# `cmake --install`, extract the user guide's examples, configure tests/consumer against the prefix
# (find_package(Shatter)), build both programs, cook the plate with the first and run the second on
# the cache, and check with ldd and readelf that the runtime program depends on neither TetGen, assimp
# nor the cooking library. One file, two roles: included by tests/CMakeLists.txt it registers the
# test; run with `cmake -P` (the test's command) it does the work.
if(NOT CMAKE_SCRIPT_MODE_FILE)
    add_test(NAME consumer_find_package
             COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR} -DSOURCE=${PROJECT_SOURCE_DIR}/tests/consumer
                     -DWORK=${PROJECT_BINARY_DIR}/test_scratch/consumer -DGENERATOR=${CMAKE_GENERATOR}
                     -DMESH=${PROJECT_SOURCE_DIR}/assets/meshes/plate.obj -DSANITIZE=${SHATTER_SANITIZE}
                     -DGUIDE=${PROJECT_SOURCE_DIR}/docs/user-guide.md
                     -DBUILD_TYPE=${CMAKE_BUILD_TYPE} -P ${CMAKE_CURRENT_LIST_FILE})
    set_tests_properties(consumer_find_package PROPERTIES TIMEOUT 600)
    return()
endif()

cmake_minimum_required(VERSION 3.25) # script mode: today's policies (while(TRUE), if(<constant>))
foreach(variable BUILD_DIR SOURCE WORK GENERATOR MESH GUIDE)
    if(NOT DEFINED ${variable})
        message(FATAL_ERROR "consumer.cmake: pass -D${variable}=...")
    endif()
endforeach()

function(run)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
    if(NOT result EQUAL 0)
        list(JOIN ARGN " " command)
        message(FATAL_ERROR "failed (${result}): ${command}")
    endif()
endfunction()

# The guide's examples: every ```cpp block preceded by "<!-- consumer: NAME -->" becomes
# ${WORK}/guide/guide_NAME.inc, which the consumer programs include. A guide that no longer compiles
# fails this test.
function(extract_guide_snippets guide out_dir)
    file(READ ${guide} text)
    file(REMOVE_RECURSE ${out_dir})
    set(count 0)
    while(TRUE)
        string(FIND "${text}" "<!-- consumer: " marker)
        if(marker EQUAL -1)
            break()
        endif()
        math(EXPR name_begin "${marker} + 15")
        string(SUBSTRING "${text}" ${name_begin} -1 text)
        string(FIND "${text}" " -->" name_end)
        string(SUBSTRING "${text}" 0 ${name_end} name)
        string(FIND "${text}" "```cpp\n" fence)
        if(fence EQUAL -1)
            message(FATAL_ERROR "${guide}: the marker for '${name}' has no ```cpp block after it")
        endif()
        math(EXPR code_begin "${fence} + 7")
        string(SUBSTRING "${text}" ${code_begin} -1 text)
        string(FIND "${text}" "```" code_end)
        string(SUBSTRING "${text}" 0 ${code_end} code)
        file(WRITE ${out_dir}/guide_${name}.inc "${code}")
        math(EXPR count "${count} + 1")
    endwhile()
    if(count EQUAL 0)
        message(FATAL_ERROR "${guide}: no example marked with <!-- consumer: NAME -->")
    endif()
endfunction()

file(REMOVE_RECURSE ${WORK}/prefix ${WORK}/build)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/prefix)

set(flags "")
if(SANITIZE)
    # The installed libraries are instrumented: the consumer must link the sanitizer runtimes too.
    set(flags -DCMAKE_CXX_FLAGS=-fsanitize=address,undefined -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined)
endif()
if(NOT BUILD_TYPE)
    set(BUILD_TYPE Release)
endif()
extract_guide_snippets(${GUIDE} ${WORK}/guide)
run(${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/build -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${WORK}/prefix
    -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DGUIDE_DIR=${WORK}/guide ${flags})
run(${CMAKE_COMMAND} --build ${WORK}/build)
file(REMOVE ${WORK}/plate.shatter)
run(${WORK}/build/shatter_cook_example ${MESH} ${WORK}/plate.shatter)
run(${WORK}/build/shatter_runtime_example ${WORK}/plate.shatter)

# The runtime program must not depend on the cooking library or what only it links (TetGen is AGPL):
# ldd lists the whole dependency closure, readelf the program's own entries.
set(runtime ${WORK}/build/shatter_runtime_example)
execute_process(COMMAND ldd ${runtime} OUTPUT_VARIABLE closure RESULT_VARIABLE result)
execute_process(COMMAND readelf -d ${runtime} OUTPUT_VARIABLE needed RESULT_VARIABLE readelf_result)
if(NOT result EQUAL 0 OR NOT readelf_result EQUAL 0)
    message(FATAL_ERROR "ldd or readelf failed on ${runtime}")
endif()
if(NOT closure MATCHES "libshatter_bullet" OR NOT closure MATCHES "libshatter_core")
    message(FATAL_ERROR "ldd shows no Shatter runtime library for ${runtime}:\n${closure}")
endif()
foreach(forbidden libtet libassimp libshatter_cook)
    if(closure MATCHES "${forbidden}" OR needed MATCHES "${forbidden}")
        message(FATAL_ERROR "${runtime} depends on ${forbidden}:\n${closure}")
    endif()
endforeach()
execute_process(COMMAND ldd ${WORK}/build/shatter_cook_example OUTPUT_VARIABLE cook_closure)
if(NOT cook_closure MATCHES "libtet")
    message(FATAL_ERROR "the cooking example does not link TetGen; is this check looking at the right files?")
endif()
message(STATUS "consumer: both programs built against the installed package and ran; the runtime needs no TetGen or assimp")
