// FracturableCollisionAlgorithm: TVCG Algorithm 1 run both ways (S(A) against D(B) and S(B) against
// D(A), TVCG §3) for one Bullet pair, with one self-adapting budget per pair (TVCG §5.2), spread
// contact selection and normal filtering, speculative contacts for fast pairs, and manifolds keyed by
// each contact's sphere-tree point id so that warm starting survives. Nothing throws through Bullet: a
// pair whose query fails outputs nothing that step and counts a failure. Re-entrant: per-pair state in
// the algorithm, query scratch thread_local, shared data only read, statistics atomic. The reasons for
// each choice are in docs/algorithms.md, "The Bullet narrow phase".
#include "fracturable_collision_algorithm.h"

#include "binary_io.h"
#include "bullet_convert.h"
#include "contact_selection.h"
#include "fracturable_shape.h"
#include "object_state.h"
#include "oriented_box.h"
#include "shape_field.h"

#include <BulletCollision/BroadphaseCollision/btDispatcher.h>
#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionDispatch/btManifoldResult.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <LinearMath/btAabbUtil2.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace shatter
{

namespace detail
{

/// One side of the pair at this step.
struct PairSide
{
    const FracturableShape* fracturable = nullptr;
    const ShapeField* field = nullptr;
    Eigen::Isometry3d toWorld = Eigen::Isometry3d::Identity(); // material (or shape-local) → world
    Real radius = std::numeric_limits<Real>::infinity();
};

/// A contact in world coordinates, owned by one side.
struct PairContact
{
    Vec3 point;  // the owner's point
    Vec3 normal; // pushes the owner's point out of the other side
    Real depth;  // signed distance, negative = penetration
    std::uint32_t key;
    std::uint32_t slot;
};

struct PairScratch
{
    QueryScratch query;
    std::vector<Contact> contacts;
    std::vector<PairContact> pair;
    std::vector<std::uint32_t> fill; // contacts per manifold this step
    // Spread selection (Adaptive).
    std::vector<SelectionCandidate> candidates;
    std::vector<Index> kept;
    std::vector<Real> selectionDistance;
    std::vector<PairContact> selected;
};

} // namespace detail

namespace
{

enum SideKind : std::uint8_t
{
    kFracturable,
    kField,       // a shape ShapeField answers
    kUnsupported, // neither: the pair produces no contacts
};

using detail::PairContact;
using Side = detail::PairSide;
using Scratch = detail::PairScratch;

thread_local Scratch tlsScratch;

constexpr std::uint32_t kUnrouted = std::numeric_limits<std::uint32_t>::max();

/// The field shifted by `shift` = 2ε: "within +ε" of it means "deeper than ε" in the real field (see the
/// file comment). Points outside the real field are never near (the band shrinks to max(band − 2ε, 0)).
template <class Field>
struct DeepOnly
{
    const Field& inner;
    Real shift;

    FieldSample sample(const Vec3& p, Real band) const
    {
        FieldSample s = inner.sample(p, std::max(band - shift, Real(0)));
        s.distance += shift;
        return s;
    }
    bool sphereTest(const Vec3& p, Real radius) const
    {
        return radius > shift && inner.sphereTest(p, radius - shift);
    }
    /// The inner field's cached form, where it has one (the cache holds the inner field's bound).
    bool sphereTest(const Vec3& p, Real radius, Real& lowerBound) const requires requires(Real& lower)
    {
        inner.sphereTest(p, radius, lower);
    }
    {
        return radius > shift && inner.sphereTest(p, radius - shift, lowerBound);
    }
};

/// collide() once; returns the number of colliding points it met (QueryStats::collidingPoints).
template <class Field>
Index runQuery(const SphereForest& forest, FragmentId f, const Eigen::Isometry3d& aToB, const Field& field,
               const QuerySettings& options, Index& budget, bool deepOnly, Scratch& s)
{
    QueryStats stats;
    if (!deepOnly)
    {
        collide(forest, f, aToB, field, options, budget, s.query, s.contacts, &stats);
        return stats.collidingPoints;
    }
    const std::size_t before = s.contacts.size();
    const Real shift = 2 * options.tolerance;
    QuerySettings full = options;
    full.mode = ContactMode::Full;
    full.speculative = 0;
    Index unused = 1;
    collide(forest, f, aToB, DeepOnly<Field>{field, shift}, full, unused, s.query, s.contacts, &stats);
    for (std::size_t i = before; i < s.contacts.size(); ++i)
        s.contacts[i].depth -= shift;
    return stats.collidingPoints;
}

/// What one direction of the pair found.
struct DirectionResult
{
    Index contacts = 0;        // appended, speculative ones included
    Index collidingPoints = 0; // QueryStats::collidingPoints
};

/// S(sides[owner]) against D(sides[1 − owner]); appends world contacts to s.pair.
DirectionResult runDirection(const Side (&sides)[2], int owner, const QuerySettings& options, Index& budget,
                             bool deepOnly, Scratch& s)
{
    const Side& a = sides[owner];
    const Side& b = sides[1 - owner];
    const SphereForest* forest = nullptr;
    FragmentId f = 0;
    if (a.fracturable)
    {
        forest = &a.fracturable->state().sphereForest();
        f = a.fracturable->fragment();
    }
    else
        forest = a.field->pointShell();
    if (!forest)
        return {}; // a static plane has no point shell
    const Eigen::Isometry3d aToB = b.toWorld.inverse() * a.toWorld;
    s.contacts.clear();
    DirectionResult result;
    if (b.fracturable)
    {
        const FragmentFieldView view(b.fracturable->state(), b.fracturable->fragment());
        result.collidingPoints = runQuery(*forest, f, aToB, view, options, budget, deepOnly, s);
    }
    else
        result.collidingPoints = runQuery(*forest, f, aToB, *b.field, options, budget, deepOnly, s);

    const Mat3 rotationB = b.toWorld.linear();
    for (const Contact& c : s.contacts)
        s.pair.push_back({a.toWorld * c.position, rotationB * c.normal, c.depth,
                          std::uint32_t(c.point) << 1 | std::uint32_t(owner), 0});
    result.contacts = Index(s.contacts.size());
    return result;
}

/// How far the two sides can approach each other within the step of length dt: the relative speed of
/// the centres, plus |ω|·r per side (r from the body's centre of mass to the side's far end: a compound
/// child sits off the centre), × dt. What gravity adds within the step (g·dt², 0.7 mm at 120 Hz) is
/// left out: a falling body is fast long before that matters, and at rest it would only surround every
/// contact with speculative points the solver does not need.
Real approachBound(const btCollisionObjectWrapper* const (&wraps)[2], const Side (&sides)[2], Real dt)
{
    Vec3 relative = Vec3::Zero();
    Real speed = 0;
    for (int i = 0; i < 2; ++i)
    {
        const btRigidBody* body = btRigidBody::upcast(wraps[i]->getCollisionObject());
        if (!body)
            continue;
        const Vec3 v = toEigen(body->getLinearVelocity());
        relative += i == 0 ? v : Vec3(-v);
        const Real spin = Real(body->getAngularVelocity().length());
        if (spin > 0 && std::isfinite(sides[i].radius))
        {
            const btVector3 offset =
                wraps[i]->getWorldTransform().getOrigin() - body->getWorldTransform().getOrigin();
            speed += spin * (Real(offset.length()) + sides[i].radius);
        }
    }
    return (relative.norm() + speed) * dt;
}

/// Adaptive's budget for the next step: it rises at once to the number of points found deeper than ε,
/// and decays by a quarter of its surplus per step back toward the initial budget.
Index nextBudget(Index current, Index deep, const CollisionSettings& settings)
{
    const Index target = std::clamp(deep, settings.initialBudget, settings.maxContactsPerPair);
    return target >= current ? target : current - (current - target + 3) / 4;
}

/// The most contacts a pair may keep this step: maxContactsPerStep shared by the live pairs (at least 1).
Index contactCap(const CollisionSettings& settings, long livePairs)
{
    const long share = long(settings.maxContactsPerStep) / std::max(1L, livePairs);
    return Index(std::clamp<long>(share, 1, long(settings.maxContactsPerPair)));
}

/// True if the two shapes, each grown by `band`, cannot touch: their world boxes are disjoint, or their
/// oriented boxes are (a fragment's tight body-frame box turned with it, which its world box can exceed
/// by up to √3 per axis; another shape's world box).
bool apart(const btCollisionObjectWrapper* const (&wraps)[2], const std::uint8_t (&kinds)[2], Real band)
{
    btVector3 lo[2], hi[2];
    for (int i = 0; i < 2; ++i)
        wraps[i]->getCollisionShape()->getAabb(wraps[i]->getWorldTransform(), lo[i], hi[i]);
    const btScalar g = btScalar(band);
    const btVector3 grow(g, g, g);
    if (!TestAabbAgainstAabb2(lo[0] - grow, hi[0] + grow, lo[1] - grow, hi[1] + grow))
        return true;
    OrientedBox boxes[2];
    for (int i = 0; i < 2; ++i)
    {
        if (kinds[i] == kFracturable)
        {
            const btTransform& t = wraps[i]->getWorldTransform();
            const btCollisionShape* shape = wraps[i]->getCollisionShape();
            const Aabb& local = static_cast<const FracturableShape*>(shape)->localBounds();
            const btScalar margin = shape->getMargin();
            boxes[i] = {t(toBullet(local.center())), t.getBasis(),
                        toBullet(Vec3(Real(0.5) * local.extent())) + btVector3(margin, margin, margin)};
        }
        else
            boxes[i] = {btScalar(0.5) * (lo[i] + hi[i]), btMatrix3x3::getIdentity(),
                        btScalar(0.5) * (hi[i] - lo[i])};
        boxes[i].half += grow;
    }
    return separated(boxes[0], boxes[1]);
}

std::uint32_t keyOf(const btManifoldPoint& p)
{
    return p.m_index0 >= 0 ? std::uint32_t(p.m_index0) << 1 : std::uint32_t(p.m_index1) << 1 | 1u;
}

/// The staging manifold's single point (see the file comment). Its lateral impulse is huge so that
/// replaceContactPoint's friction-anchor test (CF_HAS_FRICTION_ANCHOR) never keeps it in place of the
/// new point; the copy stored into a real manifold gets clean impulses (storeContact).
btManifoldPoint stagingPoint()
{
    btManifoldPoint p(btVector3(0, 0, 0), btVector3(0, 0, 0), btVector3(0, 1, 0), 0);
    p.m_appliedImpulseLateral1 = BT_LARGE_FLOAT;
    return p;
}

/// Puts `staged` into `manifold`: over the point with the same key if there is one (replaceContactPoint
/// keeps its impulses for warm starting, and a friction anchor in place), else as a new point with no
/// impulse yet. Fires Bullet's contact-started callback when the manifold was empty, as
/// btManifoldResult::addContactPoint does.
void storeContact(btPersistentManifold& manifold, const btManifoldPoint& staged, std::uint32_t key)
{
    for (int i = 0; i < manifold.getNumContacts(); ++i)
        if (keyOf(manifold.getContactPoint(i)) == key)
        {
            manifold.replaceContactPoint(staged, i);
            return;
        }
    btManifoldPoint point = staged;
    point.m_appliedImpulse = 0;
    point.m_appliedImpulseLateral1 = 0;
    point.m_appliedImpulseLateral2 = 0;
    point.m_prevRHS = 0;
    point.m_lifeTime = 0;
    point.m_userPersistentData = nullptr;
    const bool started = manifold.getNumContacts() == 0;
    manifold.addManifoldPoint(point, true);
    if (started && gContactStartedCallback)
        gContactStartedCallback(&manifold);
}

} // namespace

FracturableCollisionAlgorithm::FracturableCollisionAlgorithm(const btCollisionAlgorithmConstructionInfo& ci,
                                                             const btCollisionObjectWrapper* body0Wrap,
                                                             const btCollisionObjectWrapper* body1Wrap,
                                                             std::shared_ptr<const CollisionContext> context,
                                                             bool closestPoints)
    : btActivatingCollisionAlgorithm(ci, body0Wrap, body1Wrap), m_context(std::move(context)),
      m_budget(m_context->settings.initialBudget), m_closestPoints(closestPoints)
{
    if (!m_closestPoints)
        m_context->counters->livePairs.fetch_add(1, std::memory_order_relaxed);
    const btCollisionObjectWrapper* wraps[2] = {body0Wrap, body1Wrap};
    for (int i = 0; i < 2; ++i)
    {
        const btCollisionShape& shape = *wraps[i]->getCollisionShape();
        if (FracturableShape::is(shape))
            m_kind[i] = kFracturable;
        else if (ShapeField::supports(shape))
        {
            // A shape the field cannot be built for (e.g. an empty mesh) must not throw through Bullet's
            // dispatcher: the pair then has no contacts, and says so.
            try
            {
                m_fields[i] = m_context->fields->get(shape);
                m_kind[i] = kField;
            }
            catch (const std::exception& e)
            {
                m_fields[i].reset();
                unsupported(i, shape, e.what());
            }
        }
        else
            unsupported(i, shape, "Shatter has no distance field for this shape type");
    }
}

void FracturableCollisionAlgorithm::unsupported(int side, const btCollisionShape& shape,
                                                const char* why) noexcept
{
    m_kind[side] = kUnsupported;
    if (m_closestPoints)
        return;
    CollisionCounters& counters = *m_context->counters;
    counters.unsupportedPairs.fetch_add(1, std::memory_order_relaxed);
    try
    {
        bool first = false;
        {
            const std::lock_guard<std::mutex> lock(counters.errorMutex);
            first = counters.unsupportedShapeTypes.insert(shape.getShapeType()).second;
        }
        if (first && m_context->settings.log)
            m_context->settings.log(std::string("a fracturable body and a ") + shape.getName() +
                                    " (shape type " + std::to_string(shape.getShapeType()) +
                                    ") get no contacts: " + why +
                                    " (counted in CollisionStatistics::unsupportedPairs)");
    }
    catch (...)
    {
        // A failing log must not throw through Bullet's dispatcher.
    }
}

FracturableCollisionAlgorithm::~FracturableCollisionAlgorithm()
{
    if (!m_closestPoints)
        m_context->counters->livePairs.fetch_sub(1, std::memory_order_relaxed);
    for (int i = 0; i < m_manifolds.size(); ++i)
        m_dispatcher->releaseManifold(m_manifolds[i]);
}

void FracturableCollisionAlgorithm::getAllContactManifolds(btManifoldArray& manifoldArray)
{
    for (int i = 0; i < m_manifolds.size(); ++i)
        manifoldArray.push_back(m_manifolds[i]);
}

void FracturableCollisionAlgorithm::processCollision(const btCollisionObjectWrapper* body0Wrap,
                                                     const btCollisionObjectWrapper* body1Wrap,
                                                     const btDispatcherInfo& dispatchInfo,
                                                     btManifoldResult* resultOut)
{
    // Bullet is not exception-safe: an exception unwinding through the dispatcher would leave the
    // world half stepped. Nothing is expected to throw here (settings and shapes were checked at
    // registration and construction), so a throw means corrupt data: drop the pair's contacts for
    // this step and report it.
    try
    {
        collide(body0Wrap, body1Wrap, dispatchInfo, resultOut);
    }
    catch (const std::exception& e)
    {
        fail(e.what());
    }
    catch (...)
    {
        fail("unknown exception in the narrow phase");
    }
}

void FracturableCollisionAlgorithm::fail(const char* message) noexcept
{
    for (int i = 0; i < m_manifolds.size(); ++i)
        m_manifolds[i]->clearManifold();
    m_routes.clear();
    CollisionCounters& counters = *m_context->counters;
    counters.failures.fetch_add(1, std::memory_order_relaxed);
    try
    {
        {
            const std::lock_guard<std::mutex> lock(counters.errorMutex);
            counters.lastError = message;
        }
        if (m_context->settings.log)
            m_context->settings.log(message);
    }
    catch (...)
    {
        // A failing log (or an allocation failure for the message) must not throw through Bullet either.
    }
}

void FracturableCollisionAlgorithm::collide(const btCollisionObjectWrapper* body0Wrap,
                                            const btCollisionObjectWrapper* body1Wrap,
                                            const btDispatcherInfo& dispatchInfo, btManifoldResult* resultOut)
{
    const btCollisionObject* objects[2] = {body0Wrap->getCollisionObject(), body1Wrap->getCollisionObject()};
    if (m_manifolds.size() == 0) // always leave a manifold set: btBridgedManifoldResult dereferences it
    {
        m_manifolds.push_back(m_dispatcher->getNewManifold(objects[0], objects[1]));
        if (m_breakingThreshold == 0)
            m_breakingThreshold = m_manifolds[0]->getContactBreakingThreshold();
    }

    Scratch& s = tlsScratch;
    s.pair.clear();
    const CollisionSettings& settings = m_context->settings;

    // The two sides at this step. A retired fragment (fractured, its body not yet replaced) collides
    // with nothing.
    const btCollisionObjectWrapper* wraps[2] = {body0Wrap, body1Wrap};
    Side sides[2];
    bool active = m_kind[0] != kUnsupported && m_kind[1] != kUnsupported;
    for (int i = 0; i < 2 && active; ++i)
    {
        const Eigen::Isometry3d t = toEigen(wraps[i]->getWorldTransform());
        if (m_kind[i] == kFracturable)
        {
            const auto* shape = static_cast<const FracturableShape*>(wraps[i]->getCollisionShape());
            if (shape->refusedScaling())
            {
                fail("FracturableShape: local scaling other than (1, 1, 1) is not supported (the sphere tree "
                     "and distance field are in the asset's units); build the asset from a scaled mesh");
                return;
            }
            active = shape->state().alive(shape->fragment());
            if (active && !shape->state().sphereForest().alive(shape->fragment()))
            {
                // The object says the fragment is alive but its forest has no tree for it: corrupt
                // state. The queries' precondition fails, so the pair outputs nothing and reports it.
                fail("fragment is alive in its ObjectState but not alive in the sphere forest (corrupt "
                     "state)");
                return;
            }
            sides[i].fracturable = shape;
            sides[i].toWorld = t * shape->materialToBody();
            sides[i].radius = shape->boundingRadius();
        }
        else
        {
            sides[i].field = m_fields[i].get();
            sides[i].toWorld = t;
            sides[i].radius = m_fields[i]->boundingRadius();
        }
    }

    Index collidingPoints = 0;
    Real band = 0;
    bool budgetLimited = false;
    if (active)
    {
        Real radius = std::min(sides[0].radius, sides[1].radius);
        if (!std::isfinite(radius))
            radius = std::isfinite(sides[0].radius) ? sides[0].radius : sides[1].radius;
        QuerySettings options;
        options.mode = m_context->mode;
        options.order = m_context->order;
        options.tolerance = settings.toleranceFraction * radius;
        if (m_closestPoints)
            options.tolerance = std::max(options.tolerance, Real(resultOut->m_closestPointDistanceThreshold));
        else if (settings.speculativeContacts && m_context->mode != ContactMode::Full)
        {
            const Real approach = approachBound(wraps, sides, Real(dispatchInfo.m_timeStep));
            if (std::isfinite(approach))
                options.speculative = std::min(approach, radius);
        }
        band = options.tolerance + options.speculative;
        // The fragment's own tree first (the better surface sampling), then the other direction with
        // what is left of the budget (see the file comment).
        const int first = m_kind[0] == kFracturable ? 0 : 1;
        const int second = 1 - first;
        // The step's contact budget shared by the live pairs; the pair's own budget m_budget carries on
        // unchanged, so that nothing changes while the step budget does not bind.
        const bool capped = !m_closestPoints && m_context->mode != ContactMode::Full;
        const Index pairCap =
            capped ? contactCap(settings, m_context->counters->livePairs.load(std::memory_order_relaxed))
                   : settings.maxContactsPerPair;
        const Index m = std::min(m_budget, pairCap);
        // Bullet's broadphase pairs bodies by boxes it grows by a margin and the motion, so in a pile
        // most pairs lie apart: their own boxes, grown by the band, are disjoint.
        if (apart(wraps, m_kind, band))
        {
            if (m_context->mode == ContactMode::Adaptive && !m_closestPoints)
                m_budget = nextBudget(m_budget, 0, settings); // as if the queries found nothing
        }
        else if (m_context->mode == ContactMode::Full)
        {
            Index b = m;
            collidingPoints += runDirection(sides, first, options, b, false, s).collidingPoints;
            b = m;
            collidingPoints += runDirection(sides, second, options, b, false, s).collidingPoints;
        }
        else
        {
            const bool adaptive = m_context->mode == ContactMode::Adaptive;
            // Adaptive collects candidateFactor × m candidates plus at most maxContactsPerPair deep (or
            // speculative) ones per direction; FixedBudget is Algorithm 1's first m.
            const Index wanted = adaptive ? m * settings.candidateFactor : m;
            options.contactLimit = wanted + pairCap;
            Index b1 = wanted;
            const DirectionResult r1 = runDirection(sides, first, options, b1, false, s);
            collidingPoints += r1.collidingPoints;
            // Speculative contacts count here: a pair approaching fast has its first direction's
            // band full of them, and a second full query would double the cost for no load-bearing
            // contact (the deep-only pass still finds what is deeper than ε).
            if (r1.contacts < wanted)
            {
                Index b2 = wanted - r1.contacts;
                collidingPoints += runDirection(sides, second, options, b2, false, s).collidingPoints;
            }
            else if (adaptive)
            {
                Index unused = 1;
                options.contactLimit = pairCap;
                collidingPoints += runDirection(sides, second, options, unused, true, s).collidingPoints;
            }
            if (adaptive)
            {
                filterNormals(options.tolerance, band, s);
                Index deep = 0;
                for (const PairContact& c : s.pair)
                    deep += c.depth < -options.tolerance ? 1 : 0;
                const Index wantedKeep = std::min(settings.maxContactsPerPair, std::max(m_budget, deep));
                const Index keep = std::min(wantedKeep, pairCap);
                budgetLimited = keep < wantedKeep && s.pair.size() > keep; // found more than it may keep
                selectContacts(keep, options.tolerance, s);
                if (!m_closestPoints)
                    m_budget = nextBudget(m_budget, deep, settings);
            }
            else // FixedBudget: the query stopped at m, so it may have had more
                budgetLimited = m < m_budget && s.pair.size() >= m;
        }
    }

    routeContacts(objects, s);
    addContacts(objects, sides, band, resultOut, s);

    if (!m_closestPoints && active)
    {
        CollisionCounters& counters = *m_context->counters;
        counters.collidingPoints.fetch_add(long(collidingPoints), std::memory_order_relaxed);
        counters.outputContacts.fetch_add(long(s.pair.size()), std::memory_order_relaxed);
        if (!s.pair.empty())
            counters.pairs.fetch_add(1, std::memory_order_relaxed);
        if (budgetLimited)
            counters.budgetLimitedPairs.fetch_add(1, std::memory_order_relaxed);
    }
}

const FracturableCollisionAlgorithm::Route* FracturableCollisionAlgorithm::findRoute(std::uint32_t key) const
{
    const auto it = std::lower_bound(m_routes.begin(), m_routes.end(), key,
                                     [](const Route& r, std::uint32_t k) { return r.key < k; });
    return it != m_routes.end() && it->key == key ? &*it : nullptr;
}

void FracturableCollisionAlgorithm::filterNormals(Real tolerance, Real band, Scratch& s)
{
    // Normals as Bullet's normal on B (from B toward A): owner B's push is reversed.
    const auto normalOnB = [](const PairContact& c)
    {
        return (c.key & 1u) ? Vec3(-c.normal) : c.normal;
    };
    // Tunnelled points: deeper than ε with a normal more than 120° off the pair's normal of the last
    // step (the far surface of a thin body is nearer than the one they came through).
    constexpr Real kCos120 = -0.5;
    if (m_pairNormal.squaredNorm() > 0)
        s.pair.erase(std::remove_if(s.pair.begin(), s.pair.end(),
                                    [&](const PairContact& c) {
                                        return c.depth < -tolerance &&
                                               normalOnB(c).dot(m_pairNormal) < kCos120;
                                    }),
                     s.pair.end());

    // Ambiguous edges: touching (|d| < ε) with a normal more than 45° off the pair's normal, the mean
    // weighted by how far below +ε each contact lies, so that the deepest set it.
    Vec3 mean = Vec3::Zero();
    for (const PairContact& c : s.pair)
        if (c.depth < tolerance)
            mean += (tolerance - c.depth) * normalOnB(c);
    if (mean.squaredNorm() > 0)
    {
        mean.normalize();
        constexpr Real kCos45 = 0.70710678118654752;
        s.pair.erase(std::remove_if(s.pair.begin(), s.pair.end(),
                                    [&](const PairContact& c) {
                                        return std::abs(c.depth) < tolerance &&
                                               normalOnB(c).dot(mean) < kCos45;
                                    }),
                     s.pair.end());
    }

    // This step's pair normal, speculative contacts included (they set it before the bodies touch).
    Vec3 pairNormal = Vec3::Zero();
    for (const PairContact& c : s.pair)
        pairNormal += (band - c.depth) * normalOnB(c);
    if (pairNormal.squaredNorm() > 0)
        m_pairNormal = pairNormal.normalized();
}

void FracturableCollisionAlgorithm::selectContacts(Index keep, Real tolerance, Scratch& s) const
{
    if (s.pair.size() <= keep)
        return;
    s.candidates.clear();
    for (const PairContact& c : s.pair)
        s.candidates.push_back({c.point, c.depth, findRoute(c.key) != nullptr, !(c.depth < tolerance)});
    selectSpreadContacts(s.candidates, keep, s.kept, s.selectionDistance);
    std::sort(s.kept.begin(), s.kept.end()); // traversal order, deterministic
    s.selected.clear();
    for (const Index i : s.kept)
        s.selected.push_back(s.pair[i]);
    std::swap(s.pair, s.selected);
}

void FracturableCollisionAlgorithm::routeContacts(const btCollisionObject* const (&objects)[2], Scratch& s)
{
    // Every contact goes to last step's manifold if it still has room, else the first manifold with
    // room, else a new one.
    s.fill.assign(std::size_t(m_manifolds.size()), 0);
    for (PairContact& c : s.pair)
    {
        c.slot = kUnrouted;
        if (const Route* r = findRoute(c.key);
            r && r->slot < s.fill.size() && s.fill[r->slot] < MANIFOLD_CACHE_SIZE)
            c.slot = r->slot;
        if (c.slot != kUnrouted)
            ++s.fill[c.slot];
    }
    std::uint32_t cursor = 0;
    for (PairContact& c : s.pair)
    {
        if (c.slot != kUnrouted)
            continue;
        while (cursor < s.fill.size() && s.fill[cursor] >= MANIFOLD_CACHE_SIZE)
            ++cursor;
        if (cursor == s.fill.size())
        {
            m_manifolds.push_back(m_dispatcher->getNewManifold(objects[0], objects[1]));
            s.fill.push_back(0);
        }
        c.slot = cursor;
        ++s.fill[cursor];
    }
    m_routes.clear();
    for (const PairContact& c : s.pair)
        m_routes.push_back({c.key, c.slot});
    std::sort(m_routes.begin(), m_routes.end(), [](const Route& a, const Route& b) { return a.key < b.key; });
}

void FracturableCollisionAlgorithm::addContacts(const btCollisionObject* const (&objects)[2],
                                                const Side (&sides)[2], Real band,
                                                btManifoldResult* resultOut, Scratch& s)
{
    // Drop the points this step does not report in that manifold; let the rest of the band through.
    const btScalar threshold = std::max(m_breakingThreshold, btScalar(band));
    for (int slot = 0; slot < m_manifolds.size(); ++slot)
    {
        btPersistentManifold* manifold = m_manifolds[slot];
        manifold->setContactBreakingThreshold(threshold);
        for (int i = manifold->getNumContacts() - 1; i >= 0; --i)
        {
            const Route* r = findRoute(keyOf(manifold->getContactPoint(i)));
            if (!r || r->slot != std::uint32_t(slot))
                manifold->removeContactPoint(i);
        }
    }

    // A pair without contacts (most pairs of a pile) needs no staging manifold.
    if (!s.pair.empty())
    {
        // See the file comment: contactTest's result hands each point to the user's callback; a simulation
        // contact is built in `staging` and stored by its key.
        btPersistentManifold staging(objects[0], objects[1], 0, BT_LARGE_FLOAT, BT_LARGE_FLOAT);
        staging.addManifoldPoint(stagingPoint(), true);
        // btManifoldResult's A/B are the manifold's bodies (ours: body0Wrap, body1Wrap); its shape
        // identifiers follow its own body order, which a compound parent may have swapped.
        const bool resultSwapped = resultOut->getBody0Internal() != objects[0];
        for (const PairContact& c : s.pair)
        {
            const int owner = int(c.key & 1u);
            const int point = int(c.key >> 1);
            int part[2] = {-1, -1}, index[2] = {-1, -1};
            index[owner] = point;
            for (int i = 0; i < 2; ++i)
                if (sides[i].fracturable)
                    part[i] = int(sides[i].fracturable->fragment());
            const int a = resultSwapped ? 1 : 0;
            resultOut->setShapeIdentifiersA(part[a], index[a]);
            resultOut->setShapeIdentifiersB(part[1 - a], index[1 - a]);
            btPersistentManifold* target = m_manifolds[int(c.slot)];
            resultOut->setPersistentManifold(m_closestPoints ? target : &staging);
            // Normal on B points from B toward A. Owner A: its point is on A, the point on B lies `depth`
            // along −n from it. Owner B: the point is on B and n pushes it out of A, so n_B = −n.
            if (owner == 0)
                resultOut->addContactPoint(toBullet(c.normal), toBullet(Vec3(c.point - c.normal * c.depth)),
                                           btScalar(c.depth));
            else
                resultOut->addContactPoint(toBullet(Vec3(-c.normal)), toBullet(c.point), btScalar(c.depth));
            if (!m_closestPoints)
                storeContact(*target, staging.getContactPoint(0), c.key);
        }
    }

    for (int slot = 0; slot < m_manifolds.size(); ++slot)
    {
        resultOut->setPersistentManifold(m_manifolds[slot]);
        resultOut->refreshContactPoints();
    }
    // Release the manifolds this step left empty (keep one), and renumber the routes of the others:
    // an impact may have needed many, a resting contact needs two.
    std::uint32_t kept = 0;
    for (int slot = 0; slot < m_manifolds.size(); ++slot)
    {
        btPersistentManifold* manifold = m_manifolds[slot];
        if (manifold->getNumContacts() == 0 && s.fill[std::size_t(slot)] == 0 &&
            (kept > 0 || slot + 1 < m_manifolds.size()))
        {
            m_dispatcher->releaseManifold(manifold);
            s.fill[std::size_t(slot)] = kUnrouted;
            continue;
        }
        s.fill[std::size_t(slot)] = kept;
        m_manifolds[int(kept++)] = manifold;
    }
    m_manifolds.resize(int(kept));
    for (Route& r : m_routes)
        r.slot = s.fill[r.slot];
    resultOut->setPersistentManifold(m_manifolds[0]);
}

btCollisionAlgorithm*
FracturableCollisionAlgorithm::CreateFunc::CreateCollisionAlgorithm(btCollisionAlgorithmConstructionInfo& ci,
                                                                    const btCollisionObjectWrapper* body0Wrap,
                                                                    const btCollisionObjectWrapper* body1Wrap)
{
    if (!FracturableShape::is(*body0Wrap->getCollisionShape()) &&
        !FracturableShape::is(*body1Wrap->getCollisionShape()))
        return fallback ? fallback->CreateCollisionAlgorithm(ci, body0Wrap, body1Wrap) : nullptr;
    // Larger than the pool slot: allocate outside the pool (freeCollisionAlgorithm frees either).
    constexpr int size = int(sizeof(FracturableCollisionAlgorithm));
    void* memory = size <= poolElementSize ? ci.m_dispatcher1->allocateCollisionAlgorithm(size)
                                           : btAlignedAlloc(std::size_t(size), 16);
    return new (memory) FracturableCollisionAlgorithm(ci, body0Wrap, body1Wrap, context, closestPoints);
}

void FracturableCollisionAlgorithm::writeState(BinaryWriter& w) const
{
    w.value(m_budget);
    w.value(m_breakingThreshold);
    w.value(std::array<Real, 3>{m_pairNormal.x(), m_pairNormal.y(), m_pairNormal.z()});
    w.array(m_routes);
}

FracturableCollisionAlgorithm::SavedState FracturableCollisionAlgorithm::readState(BinaryReader& r,
                                                                                   std::int32_t manifolds)
{
    SavedState s;
    s.budget = r.value<Index>();
    s.breakingThreshold = r.value<btScalar>();
    const auto normal = r.value<std::array<Real, 3>>();
    s.pairNormal = Vec3(normal[0], normal[1], normal[2]);
    s.routes = r.array<Route>();
    s.manifolds = manifolds;
    // The pair normal is a unit vector, or zero before the pair's first contact.
    const Real length = s.pairNormal.norm();
    if (!(length == 0 || std::abs(length - 1) < Real(1e-3)) ||
        !(s.breakingThreshold >= 0 && std::isfinite(double(s.breakingThreshold))))
        r.fail("a pair's contact state is not finite or its normal is not a unit vector");
    for (std::size_t i = 0; i < s.routes.size(); ++i)
        if (s.routes[i].slot >= std::uint32_t(manifolds) ||
            (i > 0 && !(s.routes[i - 1].key < s.routes[i].key)))
            r.fail("a pair's contact routes are out of order or name a manifold it does not have");
    return s;
}

bool FracturableCollisionAlgorithm::restoreState(const SavedState& s, const btCollisionObject* body0,
                                                 const btCollisionObject* body1)
{
    SHATTER_ASSERT(m_manifolds.size() == 0, "restoreState on an algorithm that has run");
    const CollisionSettings& settings = m_context->settings;
    if (s.budget < settings.initialBudget || s.budget > settings.maxContactsPerPair)
        return false;
    m_budget = s.budget;
    m_breakingThreshold = s.breakingThreshold;
    m_pairNormal = s.pairNormal;
    m_routes = s.routes;
    for (std::int32_t i = 0; i < s.manifolds; ++i)
        m_manifolds.push_back(m_dispatcher->getNewManifold(body0, body1));
    return true;
}

} // namespace shatter
