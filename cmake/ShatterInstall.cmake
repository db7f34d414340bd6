# Installation and the exported package: find_package(Shatter) gives Shatter::Core, Shatter::Fracture,
# Shatter::Bullet (the runtime) and Shatter::Cook (asset cooking, links TetGen). Each layer installs
# its include/ folder (cmake/ShatterLibrary.cmake).
include(CMakePackageConfigHelpers)

set(SHATTER_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Shatter)
install(TARGETS shatter_core shatter_cook shatter_fracture shatter_bullet EXPORT ShatterTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT ShatterTargets NAMESPACE Shatter:: DESTINATION ${SHATTER_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ShatterConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/ShatterConfig.cmake INSTALL_DESTINATION ${SHATTER_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ShatterConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ShatterConfig.cmake ${PROJECT_BINARY_DIR}/ShatterConfigVersion.cmake
        DESTINATION ${SHATTER_CMAKE_DIR})
