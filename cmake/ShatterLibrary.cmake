# shatter_add_library(<target> <export name> [DEPENDS <shatter targets>...]): one layer of Shatter.
# Installed headers live in include/shatter/, everything else in src/. A layer sees its own src/ and
# that of the layers it DEPENDS on; in-tree programs (tests, tools, demo) see every layer's src/
# through shatter_internal. The installed package exports only include/.
function(shatter_add_library target export_name)
    cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "DEPENDS")
    file(GLOB_RECURSE headers CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/include/*.h)
    file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp ${CMAKE_CURRENT_SOURCE_DIR}/src/*.h)
    add_library(${target} ${sources} ${headers})
    add_library(Shatter::${export_name} ALIAS ${target})
    set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name} OUTPUT_NAME ${target}
                                               VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
                                               # the layers find each other where they are installed
                                               INSTALL_RPATH "$ORIGIN")
    target_compile_features(${target} PUBLIC cxx_std_20)
    target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
                                                $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
                                         PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
    foreach(dependency ${arg_DEPENDS})
        target_link_libraries(${target} PUBLIC ${dependency})
        get_target_property(dependency_src ${dependency} SHATTER_PRIVATE_DIRS)
        target_include_directories(${target} PRIVATE ${dependency_src})
    endforeach()
    # The private headers of this layer and of everything below it, for the layers above and in-tree users.
    set(private_dirs ${CMAKE_CURRENT_SOURCE_DIR}/src)
    foreach(dependency ${arg_DEPENDS})
        get_target_property(dependency_src ${dependency} SHATTER_PRIVATE_DIRS)
        list(APPEND private_dirs ${dependency_src})
    endforeach()
    list(REMOVE_DUPLICATES private_dirs)
    set_target_properties(${target} PROPERTIES SHATTER_PRIVATE_DIRS "${private_dirs}")
    install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
            FILES_MATCHING PATTERN "*.h")
    shatter_set_warnings(${target})
endfunction()
