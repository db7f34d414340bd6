// FracturableCollisionAlgorithm (fracturable_collision_algorithm.h): TVCG Algorithm 1 run both ways for
// one Bullet pair, and the contacts handed to Bullet's solver.
//
// Both directions (TVCG §3). A pair (A, B) is queried as S(A) against D(B) and S(B) against D(A). A
// side is either a fragment (its sphere tree in the ObjectState's forest, its fragment distance field
// through FragmentFieldView) or a non-fracturable shape (ShapeField: an analytic, GJK or BVH distance,
// and a point shell as its "sphere tree"; a static plane has no shell, so only one direction runs).
// Sibling fragments of one object are just two fragments of the same ObjectState. Queries run in the
// field owner's frame: a point of A goes to B's frame by (T_B·O_B)⁻¹(T_A·O_A) (DESIGN.md §2), O being
// the material → body offset of a fragment and the identity for other shapes; T comes from the
// wrappers, which hold a compound child's shape and world transform when Bullet's compound algorithm
// recursed to us.
//
// One budget per pair (TVCG §5.2). The paper keeps one m per pair of fragments. The first direction
// (the fragment's own tree first, it samples its surface best) gets m; the second gets what is left.
// When the first already reached m, the second must look only for points deeper than ε, as Algorithm 1
// does after its STOP: collide() cannot start in that phase, so the second query runs in Full mode
// against the field shifted by 2ε (DeepOnly below), where "within +ε" means "deeper than ε" and
// sphereTest(r) becomes sphereTest(r − 2ε) — the same culling as the −ε phase. Every contact deeper
// than ε found after m was reached raises m by one, as in the paper. The paper never lowers m, but one
// impact would then leave a pair with hundreds of contacts at rest; so after a step without deep
// contacts m decays geometrically (a quarter of the surplus per step) back to its initial value.
//
// ε and speculative contacts. ε = toleranceFraction × the smaller object radius of the pair (TVCG
// §5.2's 0.2 %). Contacts are points within +ε, i.e. speculative contacts up to ε away; Bullet's
// solver lets those approach by exactly their distance, so resting contacts settle at distance ~0 and
// penetration stays below ε. ε is far below the manifold's contact breaking threshold (2 % of the
// radius), so addContactPoint keeps them all. For contactTest the query distance grows to the
// caller's m_closestPointDistanceThreshold.
//
// Manifolds and warm starting. A btPersistentManifold holds four points and, when full, replaces one
// by area (reference/bullet_integration.md §4), which would drop contacts and churn the solver's warm
// start. So each contact goes to a fixed manifold, chosen by its identity — the sphere-tree point id
// and the side it belongs to, stored in m_index0/m_index1 (the other index is -1; m_partId of the
// fragment side is its fragment id) — and stays there while it persists; new points fill manifolds
// with room, and manifolds are created as needed. Points a step no longer reports are removed before
// the new ones are added, so the manifolds hold exactly this step's contact set, and addContactPoint's
// cache lookup finds last step's point of the same id (same body-local point) and keeps its impulses.
// Then refreshContactPoints runs on every manifold (bullet3 #68), and trailing empty manifolds are
// released. All of them are returned by getAllContactManifolds and released in the destructor.
//
// Re-entrancy. Per-pair state lives in the algorithm object (Bullet runs one pair on one thread), the
// query scratch and contact buffers are thread_local, and shapes, ObjectStates and ShapeFields are only
// read. Nothing allocates once the buffers are warm, except new manifolds.
#include "shatter/fracturable_collision_algorithm.h"

#include "bullet_convert.h"
#include "shatter/fracturable_shape.h"
#include "shatter/object_state.h"
#include "shatter/shape_field.h"

#include <BulletCollision/BroadphaseCollision/btDispatcher.h>
#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionDispatch/btManifoldResult.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace shatter
{

namespace
{

enum SideKind : std::uint8_t
{
    kFracturable,
    kField,       // a shape ShapeField answers
    kUnsupported, // neither: the pair produces no contacts
};

// m never grows past this (a safety net against a runaway budget; far above any resting need).
constexpr Index kMaxBudget = 4096;

/// One side of the pair at this step.
struct Side
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

struct Scratch
{
    QueryScratch query;
    std::vector<Contact> contacts;
    std::vector<PairContact> pair;
    std::vector<std::uint32_t> fill; // contacts per manifold this step
};

thread_local Scratch tlsScratch;

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
};

template <class Field>
void runQuery(const SphereForest& forest, FragmentId f, const Eigen::Isometry3d& aToB, const Field& field,
              const QueryOptions& options, Index& budget, bool deepOnly, Scratch& s)
{
    if (!deepOnly)
    {
        collide(forest, f, aToB, field, options, budget, s.query, s.contacts);
        return;
    }
    const std::size_t before = s.contacts.size();
    const Real shift = 2 * options.tolerance;
    QueryOptions full = options;
    full.mode = ContactMode::Full;
    Index unused = 1;
    collide(forest, f, aToB, DeepOnly<Field>{field, shift}, full, unused, s.query, s.contacts);
    for (std::size_t i = before; i < s.contacts.size(); ++i)
        s.contacts[i].depth -= shift;
}

/// S(sides[owner]) against D(sides[1 − owner]); appends world contacts to s.pair, returns how many.
Index runDirection(const Side (&sides)[2], int owner, const QueryOptions& options, Index& budget,
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
        return 0; // a static plane has no point shell
    const Eigen::Isometry3d aToB = b.toWorld.inverse() * a.toWorld;
    s.contacts.clear();
    if (b.fracturable)
    {
        const FragmentFieldView view(b.fracturable->state(), b.fracturable->fragment());
        runQuery(*forest, f, aToB, view, options, budget, deepOnly, s);
    }
    else
        runQuery(*forest, f, aToB, *b.field, options, budget, deepOnly, s);

    const Mat3 rotationB = b.toWorld.linear();
    for (const Contact& c : s.contacts)
        s.pair.push_back({a.toWorld * c.position, rotationB * c.normal, c.depth,
                          std::uint32_t(c.point) << 1 | std::uint32_t(owner), 0});
    return Index(s.contacts.size());
}

std::uint32_t keyOf(const btManifoldPoint& p)
{
    return p.m_index0 >= 0 ? std::uint32_t(p.m_index0) << 1 : std::uint32_t(p.m_index1) << 1 | 1u;
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
    const btCollisionObjectWrapper* wraps[2] = {body0Wrap, body1Wrap};
    for (int i = 0; i < 2; ++i)
    {
        const btCollisionShape& shape = *wraps[i]->getCollisionShape();
        if (FracturableShape::is(shape))
            m_kind[i] = kFracturable;
        else if (ShapeField::supports(shape))
        {
            // A shape the field cannot be built for (e.g. an empty mesh) must not throw through Bullet's
            // dispatcher: the pair then simply has no contacts.
            try
            {
                m_fields[i] = m_context->fields->get(shape);
            }
            catch (const std::exception&)
            {
                m_fields[i].reset();
            }
            m_kind[i] = m_fields[i] ? kField : kUnsupported;
        }
        else
            m_kind[i] = kUnsupported;
    }
}

FracturableCollisionAlgorithm::~FracturableCollisionAlgorithm()
{
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
                                                     const btDispatcherInfo&, btManifoldResult* resultOut)
{
    const btCollisionObject* objects[2] = {body0Wrap->getCollisionObject(), body1Wrap->getCollisionObject()};
    if (m_manifolds.size() == 0) // always leave a manifold set: btBridgedManifoldResult dereferences it
        m_manifolds.push_back(m_dispatcher->getNewManifold(objects[0], objects[1]));

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
            active = shape->state().alive(shape->fragment());
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

    if (active)
    {
        Real radius = std::min(sides[0].radius, sides[1].radius);
        if (!std::isfinite(radius))
            radius = std::isfinite(sides[0].radius) ? sides[0].radius : sides[1].radius;
        QueryOptions options;
        options.mode = settings.mode;
        options.order = settings.order;
        options.tolerance = settings.toleranceFraction * radius;
        if (m_closestPoints)
            options.tolerance = std::max(options.tolerance, Real(resultOut->m_closestPointDistanceThreshold));

        // The fragment's own tree first (the better surface sampling), then the other direction with
        // what is left of the budget (see the file comment).
        const int first = m_kind[0] == kFracturable ? 0 : 1;
        const int second = 1 - first;
        const Index m = m_budget;
        if (settings.mode == ContactMode::Full)
        {
            Index b = m;
            runDirection(sides, first, options, b, false, s);
            b = m;
            runDirection(sides, second, options, b, false, s);
        }
        else
        {
            const bool adaptive = settings.mode == ContactMode::Adaptive;
            Index deep = 0;
            Index b1 = m;
            const Index k1 = runDirection(sides, first, options, b1, false, s);
            deep += b1 - m;
            if (k1 < m)
            {
                Index b2 = m - k1;
                runDirection(sides, second, options, b2, false, s);
                deep += b2 - (m - k1);
            }
            else if (adaptive)
            {
                Index unused = 1;
                deep += runDirection(sides, second, options, unused, true, s);
            }
            if (adaptive && !m_closestPoints)
                m_budget = deep > 0 ? std::min(m + deep, kMaxBudget)
                                    : settings.initialBudget + (m - settings.initialBudget) * 3 / 4;
        }
    }

    // Route every contact to a manifold: last step's manifold if it still has room, else the first
    // manifold with room, else a new one.
    s.fill.assign(std::size_t(m_manifolds.size()), 0);
    const auto findRoute = [this](std::uint32_t key) -> const Route*
    {
        const auto it = std::lower_bound(m_routes.begin(), m_routes.end(), key,
                                         [](const Route& r, std::uint32_t k) { return r.key < k; });
        return it != m_routes.end() && it->key == key ? &*it : nullptr;
    };
    constexpr std::uint32_t kUnrouted = std::numeric_limits<std::uint32_t>::max();
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

    // Drop the points this step does not report in that manifold, then add this step's contacts.
    for (int slot = 0; slot < m_manifolds.size(); ++slot)
    {
        btPersistentManifold* manifold = m_manifolds[slot];
        for (int i = manifold->getNumContacts() - 1; i >= 0; --i)
        {
            const Route* r = findRoute(keyOf(manifold->getContactPoint(i)));
            if (!r || r->slot != std::uint32_t(slot))
                manifold->removeContactPoint(i);
        }
    }
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
        resultOut->setPersistentManifold(m_manifolds[int(c.slot)]);
        // Normal on B points from B toward A. Owner A: its point is on A, the point on B lies `depth`
        // along −n from it. Owner B: the point is on B and n pushes it out of A, so n_B = −n.
        if (owner == 0)
            resultOut->addContactPoint(toBullet(c.normal), toBullet(Vec3(c.point - c.normal * c.depth)),
                                       btScalar(c.depth));
        else
            resultOut->addContactPoint(toBullet(Vec3(-c.normal)), toBullet(c.point), btScalar(c.depth));
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

} // namespace shatter
