// What in-tree programs (tests, benchmarks, shatter_run) reach of a FractureSystem beyond its public
// settings: the pipeline with its full settings, the ObjectStateSettings of new objects and the
// detailed statistics of an event (FractureEvent::details). Not installed; the comparison variants are
// in comparison_variants.h.
#pragma once

#include "comparison_variants.h"
#include "fracture_pipeline.h"
#include "object_state.h"
#include "shatter/fracture_system.h"

namespace shatter::fracture
{

/// The system's pipeline (its caches and settings).
FracturePipeline& pipeline(FractureSystem& system);
/// Replaces the pipeline with one built from `settings`; its deformation model and metric replace the
/// system's settings. Only before the first object (throws shatter::Error after, or for bad settings).
void setPipelineSettings(FractureSystem& system, const PipelineSettings& settings);
/// The ObjectStateSettings of the objects added from now on (checked by addObject).
ObjectStateSettings& objectStateSettings(FractureSystem& system);

} // namespace shatter::fracture
