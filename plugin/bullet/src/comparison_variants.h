// The papers' comparison variants: the baselines that shatter_run, the demo and the benchmarks run
// against Shatter's own methods (TVCG §7: plain breadth-first traversal and a fixed budget of SCA'12,
// every contact within ε, the SCA'12 and full-rebuild sphere-tree updates, GImpact and convex-hull
// fragments). Not installed: a production program never needs them, and the public settings
// (shatter/collision.h, FractureSystemSettings) always mean Shatter's methods.
#pragma once

#include "shatter/collision.h"
#include "sphere_forest.h"
#include "sphere_tree_query.h"

#include <cstdint>

namespace shatter
{

namespace fracture
{
class FractureSystem;

/// How fragment bodies collide (the baselines of TVCG §7 for the same fracture events).
enum class FragmentShapeKind : std::uint8_t
{
    Fracturable, ///< FracturableShape (sphere tree + fragment distance field): Shatter
    GImpact,     ///< btGImpactMeshShape of the fragment surface (Bullet's GImpact algorithm is registered)
    ConvexHull,  ///< one btConvexHullShape per fragment
};
} // namespace fracture

/// Bullet's multipoint perturbation iterations (and the point threshold) for convex pairs in a world
/// whose fragments are convex hulls (applyComparisonVariants); Bullet's default is 0.
inline constexpr int kBaselineMultipointIterations = 3;
/// The hull baseline's contact breaking threshold as a multiple of Bullet's (2 % of the shape's angular
/// motion disc): at long steps a resting hull's points drift further than that between steps, its
/// manifold keeps one point at a time, and the body rocks about it and sinks (docs/scenes.md).
inline constexpr btScalar kBaselineBreakingThresholdScale = 10;

/// One choice per variant; the defaults are Shatter's methods (what the public API runs).
struct ComparisonVariants
{
    /// TVCG §5.2: Adaptive (Shatter), Full (every point within ε) or FixedBudget (stop at m, SCA'12).
    ContactMode contacts = ContactMode::Adaptive;
    /// TVCG §5.3 maximum-distance traversal (Shatter) or SCA'12's plain breadth first.
    TraversalOrder order = TraversalOrder::MaxDistance;
    /// TVCG §6.2-6.3 (Shatter), SCA'12 §5.2, or a rebuild of every new fragment's tree (TVCG §7.3).
    RestructureMethod restructure = RestructureMethod::Tvcg2013;
    /// Shatter's fracturable shapes or the GImpact / convex hull baselines for fragment bodies.
    fracture::FragmentShapeKind shapes = fracture::FragmentShapeKind::Fracturable;
};

/// Sets `contacts` and `order` for the pairs Bullet creates from now on (live pairs keep theirs); the
/// statistics and the other shapes' fields carry over. Throws shatter::Error for an unknown value.
void applyComparisonVariants(CollisionRegistration& registration, const ComparisonVariants& variants);
/// The variants a registration runs (contacts and order; the others at their defaults).
ComparisonVariants comparisonVariants(const CollisionRegistration& registration);

/// Sets `restructure` for objects added from now on and `shapes` for bodies made from now on (call it
/// before the first object for a consistent run). GImpact registers Bullet's GImpact algorithm with
/// the world's dispatcher; ConvexHull sets kBaselineMultipointIterations on its configuration when
/// that is a btDefaultCollisionConfiguration (every convex pair of the world, for good). Throws
/// shatter::Error for an unknown value.
void applyComparisonVariants(fracture::FractureSystem& system, const ComparisonVariants& variants);

} // namespace shatter
