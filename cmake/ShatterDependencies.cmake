# Every dependency comes from a Debian package (scripts/setup-deps.sh installs them).
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(assimp REQUIRED)
find_package(PkgConfig REQUIRED)

# Bullet through pkg-config: unlike CMake's FindBullet this carries -DBT_USE_DOUBLE_PRECISION for the
# float64 build (btScalar must be the same type in Bullet and in every file that includes its headers).
if(SHATTER_BULLET_DOUBLE)
    set(SHATTER_BULLET_PC bullet-float64)
else()
    set(SHATTER_BULLET_PC bullet)
endif()
pkg_check_modules(BULLET REQUIRED IMPORTED_TARGET GLOBAL ${SHATTER_BULLET_PC})

# TetGen 1.5 (libtet1.5-dev) ships a bare header and library. Debian builds it with TETLIBRARY, so
# failures are thrown as int instead of calling exit(); our wrapper turns them into shatter::Error.
find_path(TETGEN_INCLUDE_DIR tetgen.h REQUIRED)
find_library(TETGEN_LIBRARY tet REQUIRED)
add_library(Shatter_TetGen INTERFACE)
target_include_directories(Shatter_TetGen SYSTEM INTERFACE ${TETGEN_INCLUDE_DIR})
target_link_libraries(Shatter_TetGen INTERFACE ${TETGEN_LIBRARY})
target_compile_definitions(Shatter_TetGen INTERFACE TETLIBRARY)

find_package(Threads REQUIRED)
# oneTBB (libtbb-dev): parallel loops and tasks of the fracture pipeline, its precomputation and the
# fracture jobs (shatter_fracture and shatter_bullet; the core stays Eigen-only).
find_package(TBB REQUIRED)

# Spectra 1.0 (libspectra-dev): header-only sparse eigensolvers for the modal basis.
find_path(SPECTRA_INCLUDE_DIR Spectra/SymGEigsShiftSolver.h REQUIRED)
