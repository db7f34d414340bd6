# shatter_set_warnings(target): the project's warning set, errors under SHATTER_WERROR, and the
# sanitizer flags under SHATTER_SANITIZE and SHATTER_SANITIZE_THREAD. Sanitizer builds optimise at
# -O2 at most: with the instrumentation, -O3 takes about 1.5 times as long to compile and the tests
# run no faster (tests/CMakeLists.txt lowers the test programs to -O1).
function(shatter_set_warnings target)
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
    if(SHATTER_WERROR)
        target_compile_options(${target} PRIVATE -Werror)
    endif()
endfunction()

if(SHATTER_SANITIZE OR SHATTER_SANITIZE_THREAD OR SHATTER_FUZZ) # only Release uses -O3
    string(REPLACE "-O3" "-O2" CMAKE_CXX_FLAGS_RELEASE "${CMAKE_CXX_FLAGS_RELEASE}")
    string(REPLACE "-O3" "-O2" CMAKE_C_FLAGS_RELEASE "${CMAKE_C_FLAGS_RELEASE}")
endif()

if(SHATTER_SANITIZE)
    add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
    add_link_options(-fsanitize=address,undefined)
    add_compile_definitions(SHATTER_ENABLE_ASSERTS=1)
endif()

# The fuzz build instruments everything for libFuzzer's coverage and checks it with ASan and UBSan; the
# harnesses link libFuzzer's main (tests/fuzz/CMakeLists.txt).
if(SHATTER_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
        message(FATAL_ERROR "SHATTER_FUZZ needs clang: configure with CC=clang CXX=clang++")
    endif()
    add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                        -fno-sanitize-recover=undefined -g1)
    add_link_options(-fsanitize=address,undefined)
    add_compile_definitions(SHATTER_ENABLE_ASSERTS=1)
endif()

if(SHATTER_SANITIZE_THREAD)
    if(SHATTER_SANITIZE)
        message(FATAL_ERROR "SHATTER_SANITIZE and SHATTER_SANITIZE_THREAD cannot be combined")
    endif()
    add_compile_options(-fsanitize=thread -fno-omit-frame-pointer -g1) # line tables: reports name files and lines
    add_link_options(-fsanitize=thread)
    add_compile_definitions(SHATTER_ENABLE_ASSERTS=1)
endif()
