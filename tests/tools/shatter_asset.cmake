# End-to-end test of the shatter_asset command line (build, info --json, rebuild of a corrupt cache,
# clear errors for bad meshes and bad flags).
add_test(NAME shatter_asset_cli
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/shatter_asset_cli.sh $<TARGET_FILE:shatter_asset>
                 ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/test_scratch/shatter_asset_cli)
set_tests_properties(shatter_asset_cli PROPERTIES TIMEOUT 300)
