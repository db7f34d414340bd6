# The installed package works for a user: install this build tree into a scratch prefix with
# `cmake --install`, configure tests/consumer against it (find_package(Shatter) → Shatter::Collision),
# build it and run it on the plate asset. One file, two roles: included by tests/CMakeLists.txt it
# registers the test; run with `cmake -P` (the test's command) it does the work.
if(NOT CMAKE_SCRIPT_MODE_FILE)
    add_test(NAME consumer_find_package
             COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR} -DSOURCE=${PROJECT_SOURCE_DIR}/tests/consumer
                     -DWORK=${PROJECT_BINARY_DIR}/test_scratch/consumer -DGENERATOR=${CMAKE_GENERATOR}
                     -DMESH=${PROJECT_SOURCE_DIR}/assets/meshes/plate.obj -DSANITIZE=${SHATTER_SANITIZE}
                     -DBUILD_TYPE=${CMAKE_BUILD_TYPE} -P ${CMAKE_CURRENT_LIST_FILE})
    set_tests_properties(consumer_find_package PROPERTIES TIMEOUT 600)
    return()
endif()

foreach(variable BUILD_DIR SOURCE WORK GENERATOR MESH)
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
run(${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/build -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${WORK}/prefix
    -DCMAKE_BUILD_TYPE=${BUILD_TYPE} ${flags})
run(${CMAKE_COMMAND} --build ${WORK}/build)
run(${WORK}/build/shatter_consumer ${MESH} ${WORK}/plate.shatter-asset)
message(STATUS "consumer built against the installed package and ran")
