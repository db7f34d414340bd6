// Algorithm 1 of TVCG: query the sphere tree S(A) of one fragment against the distance field D(B) of
// another object, with self-adapting contact selection (§5.2) and maximum-distance breadth-first
// traversal with two queues Q1/Q2 and a next-child cursor per queue entry (§5.3; SCA'12's plain FIFO as
// TraversalOrder::BreadthFirst). The field is sampled once per point and query (a generation-stamped
// cache in the caller's QueryScratch; no allocation once it has grown), and a contact is emitted only
// the first time its point is met. A point is a contact if its signed distance to B is below the
// tolerance ε; a node's children are visited if its sphere may reach within ε of B. Why the traversal
// and the contact modes work as they do: docs/algorithms.md, "The query (Algorithm 1)".
//
// The field. Algorithm 1 needs insideTest + penetration (lines 7-9) and sphereTest (line 15) of D(B),
// in B's material frame. A Field is any type with
//     FieldSample sample(const Vec3& p, Real band) const;  // insideTest + penetration, and the ε band
//     bool sphereTest(const Vec3& p, Real radius) const;   // false only if the sphere misses B
// called directly from this template (no virtual call in the loop). FragmentFieldView adapts an
// ObjectState fragment; analytic fields (plane, sphere, box, convex) plug in the same way. A field
// whose sphere test is costly may also offer
//     bool sphereTest(const Vec3& p, Real radius, Real& lowerBound) const;
// which collide() prefers: a point appears on several levels of the tree, and `lowerBound` (NaN at
// first, kept in the point's cache entry) lets the field do its per-point work once per query.
#pragma once

#include "shatter/error.h"
#include "sphere_forest.h"
#include "tet_locator.h"

#include <Eigen/Geometry>

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace shatter
{

class ObjectState;

/// When the query stops and which contacts it keeps (TVCG §5.2).
enum class ContactMode : std::uint8_t
{
    Adaptive,    ///< up to m contacts within +ε, then only points deeper than ε, each raising m by one
    Full,        ///< every point within +ε; never stops early (for comparison and tests)
    FixedBudget, ///< stop at m contacts within +ε
};

/// In what order the nodes of one level are visited.
enum class TraversalOrder : std::uint8_t
{
    MaxDistance,  ///< TVCG §5.3: the two queues and the next-child cursor (Algorithm 1)
    BreadthFirst, ///< SCA'12: a plain FIFO queue, all children of a colliding node at once
};

/// The budget m a pair starts with (TVCG §5.2: "eight in our experiments").
inline constexpr Index kInitialContactBudget = 8;

/// TVCG's tolerance ε: 0.2 % of the object's radius (model units).
inline Real defaultContactTolerance(Real objectRadius)
{
    return Real(0.002) * objectRadius;
}

/// Settings of collide(); checked there.
struct QuerySettings
{
    ContactMode mode = ContactMode::Adaptive;
    TraversalOrder order = TraversalOrder::MaxDistance;
    Real tolerance = 0; ///< ε ≥ 0, model units (see defaultContactTolerance)
    /// Speculative band s ≥ 0 (model units): while collecting (before the budget is reached, or always
    /// in Full) points within ε + s are contacts too, but only those within ε count toward m. Lets a
    /// caller report contacts a fast body will reach within the step without letting them use up the
    /// budget that resting contacts need.
    Real speculative = 0;
    /// The query stops once it has appended this many contacts, in every mode (≥ 1). Bounds the
    /// deep-contact phase of Adaptive when two bodies overlap deeply, where every point would qualify,
    /// and the speculative contacts of a fast approach.
    Index contactLimit = kInvalidIndex;
};

/// What a field says about one point (B's material frame).
struct FieldSample
{
    Real distance = 0;          ///< signed distance to B's surface, negative inside; valid when `near`
    Vec3 normal = Vec3::Zero(); ///< unit direction that moves the point out of (or away from) B
    bool near = false;          ///< inside B, or outside within the requested band (where the field knows)
};

/// One contact (c, d, n) of TVCG §3.
struct Contact
{
    Vec3 position = Vec3::Zero(); ///< the point c, in A's material frame
    Vec3 normal = Vec3::Zero();   ///< n, in B's material frame: the direction to push c out of B
    Real depth = 0;               ///< d: signed distance from c to B's surface, negative = penetrating
    Index point = kInvalidIndex;  ///< the point's index in A's sphere forest
};

/// Counters of one query.
struct QueryStats
{
    Index visitedNodes = 0;    ///< nodes tested (the cursor re-visits of §5.3 are not counted)
    Index insideTests = 0;     ///< field samples: distinct points tested (the per-point cache saves the rest)
    Index sphereTests = 0;     ///< sphereTest calls
    Index collidingPoints = 0; ///< tested points within +ε (in Full: all colliding points of A)
    Index contacts = 0;        ///< contacts emitted (speculative ones included)
    /// Algorithm 1's STOP fired (the budget was reached): FixedBudget stopped there, Adaptive went on
    /// looking only for points deeper than ε; or the query stopped at QuerySettings::contactLimit.
    bool earlyTermination = false;
};

/// Per-thread scratch of collide(): the per-point cache and the two queues. Reuse one per thread;
/// it only allocates when the forest has grown past what it has seen.
struct QueryScratch
{
    struct PointState
    {
        Index stamp = 0;        ///< generation in which the point was sampled
        std::uint32_t near = 0; ///< FieldSample::near
        Real distance = 0;      ///< FieldSample::distance; if not near, the sphere test's cached bound
    };
    static_assert(sizeof(PointState) == 16, "PointState is touched once per visited node");
    struct Entry
    {
        Index node = kInvalidIndex;
        Index next = kInvalidIndex; ///< child to push on a re-visit; kInvalidIndex on the first visit
    };

    std::vector<PointState> points;
    std::vector<Entry> current, next; ///< Q1 and Q2
    Index generation = 0;

    /// Starts a query over `pointCount` points: new generation, empty queues.
    void begin(Index pointCount);
};

/// True if collide() accepts `options` and `budget`: a finite tolerance and speculative band ≥ 0, a
/// budget ≥ 1 (unless Full) and a contact limit ≥ 1.
bool querySettingsValid(const QuerySettings& options, Index budget);
/// Throws shatter::Error naming what querySettingsValid rejects. Callers validate once (the collision
/// registration checks the settings the queries are built from); collide() itself never throws.
void checkQuerySettings(const QuerySettings& options, Index budget);

/// TVCG Algorithm 1: S(fragmentA) against `fieldB`; see the file comment. `aToB` maps A's material
/// frame into B's. Appends the contacts to `out` in traversal order (deterministic). `budget` is the
/// pair's m: read by Adaptive and FixedBudget, raised by Adaptive for every contact deeper than ε
/// found after m was reached. No allocation once `scratch` and `out` are warm. Preconditions (asserted,
/// not thrown: this runs inside Bullet's dispatcher): querySettingsValid and a live `fragmentA`.
template <class Field>
void collide(const SphereForest& forest, FragmentId fragmentA, const Eigen::Isometry3d& aToB,
             const Field& fieldB, const QuerySettings& options, Index& budget, QueryScratch& scratch,
             std::vector<Contact>& out, QueryStats* stats = nullptr)
{
    SHATTER_ASSERT(querySettingsValid(options, budget), "collide: invalid query settings");
    SHATTER_ASSERT(forest.alive(fragmentA), "collide: the fragment has no sphere tree");
    QueryStats st;
    const Index root = forest.root(fragmentA);
    if (root != kInvalidIndex)
    {
        scratch.begin(forest.pointCount());
        const std::vector<SphereNode>& nodes = forest.tree().nodes;
        const std::vector<Vec3>& points = forest.tree().points;
        const Index generation = scratch.generation;
        const Real eps = options.tolerance;
        const bool full = options.mode == ContactMode::Full;
        const bool maxDistance = options.order == TraversalOrder::MaxDistance;
        const Real speculative = options.speculative;
        Real tol = eps;           // +ε while collecting, −ε once the budget is reached (Adaptive)
        Real extra = speculative; // the speculative band, while collecting
        Index found = 0;          // contacts within tol (they count toward the budget)
        Index emitted = 0;        // contacts appended, speculative ones included
        bool stop = false;
        scratch.current.push_back({root, kInvalidIndex});
        std::size_t head = 0;
        while (!stop)
        {
            while (head < scratch.current.size() && !stop)
            {
                const QueryScratch::Entry entry = scratch.current[head++];
                Index child = entry.next;
                if (child == kInvalidIndex)
                {
                    ++st.visitedNodes;
                    const SphereNode& node = nodes[entry.node];
                    const Vec3 p = aToB * points[node.point];
                    QueryScratch::PointState& state = scratch.points[node.point];
                    if (state.stamp != generation)
                    {
                        ++st.insideTests;
                        const FieldSample sample = fieldB.sample(p, eps + speculative);
                        // A far point's distance slot caches the sphere test's lower bound (NaN: unknown).
                        state = {generation, sample.near ? 1u : 0u,
                                 sample.near ? sample.distance : std::numeric_limits<Real>::quiet_NaN()};
                        if (sample.near && sample.distance < eps)
                            ++st.collidingPoints;
                        if (sample.near && sample.distance < tol + extra)
                        {
                            out.push_back({points[node.point], sample.normal, sample.distance, node.point});
                            ++emitted;
                            if (sample.distance < tol)
                            {
                                ++found;
                                if (!full && tol < eps)
                                    ++budget;
                                else if (!full && found >= budget)
                                {
                                    st.earlyTermination = true;
                                    stop = options.mode == ContactMode::FixedBudget;
                                    tol = -eps;
                                    extra = 0;
                                }
                            }
                            if (emitted >= options.contactLimit)
                            {
                                st.earlyTermination = true;
                                stop = true;
                            }
                        }
                    }
                    if (node.firstChild == kInvalidIndex || stop)
                        continue;
                    const Real reach = node.radius + tol + extra;
                    bool descend;
                    if (state.near)
                        descend = state.distance < reach;
                    else if (reach <= 0)
                        descend = false;
                    else
                    {
                        ++st.sphereTests;
                        if constexpr (requires(Real & lower) { fieldB.sphereTest(p, reach, lower); })
                            descend = fieldB.sphereTest(p, reach, state.distance);
                        else
                            descend = fieldB.sphereTest(p, reach);
                    }
                    if (!descend)
                        continue;
                    child = node.firstChild;
                    if (!maxDistance)
                    {
                        for (; child != kInvalidIndex; child = nodes[child].nextSibling)
                            scratch.next.push_back({child, kInvalidIndex});
                        continue;
                    }
                }
                scratch.next.push_back({child, kInvalidIndex});
                if (const Index sibling = nodes[child].nextSibling; sibling != kInvalidIndex)
                    scratch.current.push_back({entry.node, sibling});
            }
            if (scratch.next.empty())
                break;
            std::swap(scratch.current, scratch.next);
            scratch.next.clear();
            head = 0;
        }
        st.contacts = emitted;
    }
    if (stats)
        *stats = st;
}

/// D(B) for collide(): fragment `fragment` of an ObjectState, in its material frame. One point location
/// per sample serves insideTest and penetration. The ε band outside B (where the fragment field stores
/// only interior distances) is found across the closest surface: a point in another fragment g at
/// distance d < band from g's surface, or outside the object at grid distance d < band, is "near" with
/// distance d if the point half a band beyond that closest surface point lies in B (so two fragments
/// resting face to face along their crack produce contacts). Holds a pointer: the state must outlive it.
/// It remembers where the last sampled point lies, because collide() sphere-tests a point right after
/// sampling it and locating it again would double the query's costliest step: so one view serves one
/// query on one thread.
class FragmentFieldView
{
public:
    /// `fragment` must be alive in `state` (asserted).
    FragmentFieldView(const ObjectState& state, FragmentId fragment);

    FieldSample sample(const Vec3& p, Real band) const;
    bool sphereTest(const Vec3& p, Real radius) const;
    bool sphereTest(const Vec3& p, Real radius, Real& lowerBound) const;

private:
    const ObjectState* state;
    FragmentId fragment;
    mutable Vec3 lastPoint = Vec3::Constant(std::numeric_limits<Real>::quiet_NaN()); // never equal at first
    mutable TetLocation lastWhere;
};

} // namespace shatter
