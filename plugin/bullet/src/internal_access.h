// The one friend of the public Bullet-glue classes (CollisionRegistration, FractureSystem): in-tree
// programs reach the comparison variants (comparison_variants.h) and the pipeline internals
// (fracture_system_internal.h) through the functions declared there, which call these. Not installed.
#pragma once

#include "comparison_variants.h"

namespace shatter
{

namespace fracture
{
class FracturePipeline;
struct PipelineSettings;
} // namespace fracture
struct ObjectStateSettings;

namespace detail
{

struct InternalAccess
{
    static void apply(CollisionRegistration& registration, const ComparisonVariants& variants);
    static ComparisonVariants variants(const CollisionRegistration& registration);
    static void apply(fracture::FractureSystem& system, const ComparisonVariants& variants);
    static fracture::FracturePipeline& pipeline(fracture::FractureSystem& system);
    static void setPipelineSettings(fracture::FractureSystem& system,
                                    const fracture::PipelineSettings& settings);
    static ObjectStateSettings& objectStateSettings(fracture::FractureSystem& system);
};

} // namespace detail
} // namespace shatter
