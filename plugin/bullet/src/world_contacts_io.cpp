// saveWorldContacts / restoreWorldContacts (collision.h): what a Bullet world carries from one step to
// the next besides its bodies' motion — the broad phase (each proxy's id, fat box and stage, the two
// trees' shapes, the pair array in its order), every pair's collision algorithm with its contact
// manifolds (warm-start impulses, lifetimes), the continuous collision's predictive manifolds, the time
// stepSimulation has not stepped, and the order of the manifolds, bodies and moving bodies the solver
// and the integration walk. Restoring all of it continues a run bit for bit; restoring only the bodies
// does not (the solver's order and warm start differ). Why each part matters: docs/architecture.md,
// "World contacts".
//
// Needs the stock btDbvtBroadphase with a btHashedOverlappingPairCache (Bullet's defaults); pairs with
// Shatter's FracturableCollisionAlgorithm keep their own state, Bullet's algorithms are rebuilt from
// the manifolds (their other state is per call). Constraints, actions, soft bodies and user data on
// contacts (m_userPersistentData) are not saved.
#include "world_contacts_io.h"

#include "binary_io.h"
#include "fracturable_collision_algorithm.h"
#include "shatter/collision.h"

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <btBulletDynamicsCommon.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <unordered_map>

namespace shatter
{
namespace
{

const FileKind kWorldContactsFile = {{'S', 'H', 'A', 'T', 'T', 'E', 'R', 'C'},
                                     kWorldContactsFormatVersion,
                                     "world contacts file",
                                     "it was written by another version of Shatter"};

constexpr int kStages = btDbvtBroadphase::STAGECOUNT + 1; // the fixed set's proxies are in stage STAGECOUNT
constexpr std::int32_t kNoAlgorithm = -1;
constexpr std::int32_t kMaxManifoldsPerPair = 1 << 16;
constexpr std::uint32_t kPredictivePair = ~std::uint32_t(0); // ManifoldSlot::pair of a predictive manifold

// GImpact's algorithm releases its manifold at the start of each call and makes one when it finds a
// contact: between steps it holds the last call's, which only a save can give back (the same way in).
struct GImpactAccess : btGImpactCollisionAlgorithm
{
    static btPersistentManifold*& manifold(btGImpactCollisionAlgorithm& algorithm)
    {
        return algorithm.*(&GImpactAccess::m_manifoldPtr);
    }
};

// btDiscreteDynamicsWorld keeps, in protected members, the manifolds of its continuous collision
// (predictive contacts) from one step to the start of the next, where it releases them, and the time
// stepSimulation has not stepped yet: reached through pointers to those members formed in a derived class.
struct WorldAccess : btDiscreteDynamicsWorld
{
    static btAlignedObjectArray<btPersistentManifold*>& predictive(btDiscreteDynamicsWorld& world)
    {
        return world.*(&WorldAccess::m_predictiveManifolds);
    }
    static btScalar& localTime(btDiscreteDynamicsWorld& world) { return world.*(&WorldAccess::m_localTime); }
};

struct SavedProxy
{
    std::int32_t uniqueId = 0;
    std::int32_t stage = 0;
    btScalar box[6]{}; // the proxy's own AABB (min, max): what the world last gave setAabb
};
static_assert(sizeof(SavedProxy) == 8 + 6 * sizeof(btScalar), "SavedProxy has no padding");

struct SavedBroadphase
{
    btScalar prediction = 0, updatesRatio = 0;
    std::int32_t stageCurrent = 0, fixedUpdates = 0, dynamicUpdates = 0, cleanupUpdates = 0;
    std::int32_t newPairs = 0, fixedLeft = 0, parseId = 0, cleanupIndex = 0, generationId = 0;
    std::uint32_t updatesCall = 0, updatesDone = 0;
    std::uint8_t deferredCollide = 0, needCleanup = 0, reserved[2]{};
};
static_assert(sizeof(SavedBroadphase) % sizeof(btScalar) == 0 &&
                  sizeof(SavedBroadphase) == 2 * sizeof(btScalar) + 48,
              "SavedBroadphase has no padding");

struct SavedTree
{
    std::int32_t lookahead = -1, leaves = 0;
    std::uint32_t optimizationPath = 0, reserved = 0;
};

// A node of a DBVT in preorder: an internal node is followed by its two subtrees.
struct SavedNode
{
    btScalar box[6]{};
    std::int32_t object = -1; // a leaf: the index of its proxy's object; −1: an internal node
    std::int32_t reserved = 0;
};
static_assert(sizeof(SavedNode) == 6 * sizeof(btScalar) + 8, "SavedNode has no padding");

struct SavedPair
{
    std::uint32_t object0 = 0, object1 = 0; // the pair's proxies' objects (proxy 0 has the smaller id)
    std::int32_t manifolds = kNoAlgorithm;  // the algorithm's manifolds; kNoAlgorithm: none made yet
    std::uint8_t shatter = 0;               // the algorithm is Shatter's (its own state follows)
    std::uint8_t reserved[3]{};
};

struct SavedManifold
{
    btScalar breakingThreshold = 0, processingThreshold = 0;
    std::int32_t companionA = 0, companionB = 0;
    std::uint32_t swapped = 0; // body 0 is the pair's object 1
    std::uint32_t reserved = 0;
};
static_assert(sizeof(SavedManifold) == 2 * sizeof(btScalar) + 16, "SavedManifold has no padding");

struct SavedPoint
{
    btScalar vectors[21]{}; // local A, local B, world on B, world on A, normal on B, friction dirs 1 and 2
    btScalar scalars[14]{}; // distance, friction, rolling, spinning, restitution, impulse, previous rhs,
                            // lateral impulses 1-2, contact motions 1-2, cfm, erp, friction cfm
    std::int32_t ints[6]{}; // part ids 0-1, indices 0-1, flags, lifetime
};
static_assert(sizeof(SavedPoint) == 35 * sizeof(btScalar) + 24, "SavedPoint has no padding");

struct SavedPredictive
{
    std::uint32_t object0 = 0, object1 = 0; // the manifold's bodies
};

struct ManifoldSlot
{
    std::uint32_t pair = 0, slot = 0;
};

void putBox(const btVector3& lo, const btVector3& hi, btScalar* out)
{
    for (int k = 0; k < 3; ++k)
    {
        out[k] = lo[k];
        out[3 + k] = hi[k];
    }
}

btDbvtVolume volume(const btScalar* box)
{
    return btDbvtVolume::FromMM(btVector3(box[0], box[1], box[2]), btVector3(box[3], box[4], box[5]));
}

bool validBox(const btScalar* box)
{
    for (int k = 0; k < 3; ++k)
        if (!std::isfinite(double(box[k])) || !std::isfinite(double(box[3 + k])) || !(box[k] <= box[3 + k]))
            return false;
    return true;
}

// Every field of a btManifoldPoint but its user data, in SavedPoint's order.
constexpr btVector3 btManifoldPoint::*kPointVectors[7] = {
    &btManifoldPoint::m_localPointA,        &btManifoldPoint::m_localPointB,
    &btManifoldPoint::m_positionWorldOnB,   &btManifoldPoint::m_positionWorldOnA,
    &btManifoldPoint::m_normalWorldOnB,     &btManifoldPoint::m_lateralFrictionDir1,
    &btManifoldPoint::m_lateralFrictionDir2};
constexpr btScalar btManifoldPoint::*kPointScalars[14] = {&btManifoldPoint::m_distance1,
                                                          &btManifoldPoint::m_combinedFriction,
                                                          &btManifoldPoint::m_combinedRollingFriction,
                                                          &btManifoldPoint::m_combinedSpinningFriction,
                                                          &btManifoldPoint::m_combinedRestitution,
                                                          &btManifoldPoint::m_appliedImpulse,
                                                          &btManifoldPoint::m_prevRHS,
                                                          &btManifoldPoint::m_appliedImpulseLateral1,
                                                          &btManifoldPoint::m_appliedImpulseLateral2,
                                                          &btManifoldPoint::m_contactMotion1,
                                                          &btManifoldPoint::m_contactMotion2,
                                                          &btManifoldPoint::m_contactCFM,
                                                          &btManifoldPoint::m_contactERP,
                                                          &btManifoldPoint::m_frictionCFM};
constexpr int btManifoldPoint::*kPointInts[6] = {
    &btManifoldPoint::m_partId0, &btManifoldPoint::m_partId1,           &btManifoldPoint::m_index0,
    &btManifoldPoint::m_index1,  &btManifoldPoint::m_contactPointFlags, &btManifoldPoint::m_lifeTime};

SavedPoint savePoint(const btManifoldPoint& p)
{
    SavedPoint s;
    for (int v = 0; v < 7; ++v)
        for (int k = 0; k < 3; ++k)
            s.vectors[3 * v + k] = (p.*kPointVectors[v])[k];
    for (int k = 0; k < 14; ++k)
        s.scalars[k] = p.*kPointScalars[k];
    for (int k = 0; k < 6; ++k)
        s.ints[k] = p.*kPointInts[k];
    return s;
}

btManifoldPoint restorePoint(const SavedPoint& s)
{
    btManifoldPoint p;
    for (int v = 0; v < 7; ++v)
        p.*kPointVectors[v] = btVector3(s.vectors[3 * v], s.vectors[3 * v + 1], s.vectors[3 * v + 2]);
    for (int k = 0; k < 14; ++k)
        p.*kPointScalars[k] = s.scalars[k];
    for (int k = 0; k < 6; ++k)
        p.*kPointInts[k] = s.ints[k];
    p.m_userPersistentData = nullptr;
    return p;
}

btDbvtBroadphase* dbvtOf(btDiscreteDynamicsWorld& world)
{
    return dynamic_cast<btDbvtBroadphase*>(world.getBroadphase());
}

btHashedOverlappingPairCache* pairCacheOf(btDiscreteDynamicsWorld& world)
{
    return dynamic_cast<btHashedOverlappingPairCache*>(world.getPairCache());
}

btDbvtProxy* proxyOf(btCollisionObject& object)
{
    return static_cast<btDbvtProxy*>(object.getBroadphaseHandle());
}

void writeTree(BinaryWriter& w, const btDbvt& tree,
               const std::unordered_map<const btCollisionObject*, std::uint32_t>& index)
{
    w.value(SavedTree{tree.m_lkhd, tree.m_leaves, tree.m_opath, 0});
    std::vector<SavedNode> nodes;
    std::vector<const btDbvtNode*> stack;
    if (tree.m_root)
        stack.push_back(tree.m_root);
    while (!stack.empty())
    {
        const btDbvtNode* node = stack.back();
        stack.pop_back();
        SavedNode s;
        putBox(node->volume.Mins(), node->volume.Maxs(), s.box);
        if (node->isleaf())
        {
            const auto* proxy = static_cast<const btDbvtProxy*>(node->data);
            s.object = std::int32_t(index.at(static_cast<const btCollisionObject*>(proxy->m_clientObject)));
        }
        else
        {
            stack.push_back(node->childs[1]);
            stack.push_back(node->childs[0]);
        }
        nodes.push_back(s);
    }
    w.array(nodes);
}

// A manifold as read: its record and points.
struct ParsedManifold
{
    SavedManifold record;
    std::vector<SavedPoint> points;
};

// An overlapping pair as read: its record, its Shatter algorithm's state, its manifolds.
struct ParsedPair
{
    SavedPair record;
    std::optional<FracturableCollisionAlgorithm::SavedState> state; // when record.shatter
    std::vector<ParsedManifold> manifolds;
};

struct ParsedPredictive
{
    SavedPredictive bodies;
    ParsedManifold manifold;
};

// What readWorldContacts parsed, checked, before it changes the world.
struct Parsed
{
    btScalar localTime = 0;                  // stepSimulation's time not yet stepped
    std::vector<btCollisionObject*> objects; // in the saved world-array order
    std::vector<std::uint32_t> moving;       // m_nonStaticRigidBodies as indices into objects
    std::vector<SavedProxy> proxies;         // per object
    SavedBroadphase broadphase;
    SavedTree trees[2];
    std::vector<SavedNode> nodes[2];
    std::vector<std::uint32_t> stages[kStages];
    std::vector<ParsedPair> pairs;            // in the cache's order
    std::vector<ParsedPredictive> predictive; // the world's, in its order
    std::vector<ManifoldSlot> order;          // the dispatcher's manifold array
};

// Reads a tree in preorder and checks its shape: every internal node has two children and the array
// holds exactly one tree; leaves name objects.
void readTree(BinaryReader& r, Parsed& p, int k, std::vector<int>& treeOf)
{
    p.trees[k] = r.value<SavedTree>();
    p.nodes[k] = r.array<SavedNode>(2 * p.objects.size() + 1);
    std::size_t open = p.nodes[k].empty() ? 0 : 1; // subtrees still to read
    std::int32_t leaves = 0;
    for (std::size_t i = 0; i < p.nodes[k].size(); ++i)
    {
        const SavedNode& n = p.nodes[k][i];
        if (open == 0)
            r.fail("a broadphase tree has nodes after its end");
        if (!validBox(n.box))
            r.fail("a broadphase tree node's box is not finite or inverted");
        if (n.object >= 0)
        {
            if (std::size_t(n.object) >= p.objects.size() || treeOf[std::size_t(n.object)] >= 0)
                r.fail("a broadphase tree leaf names no object or one already placed");
            treeOf[std::size_t(n.object)] = k;
            ++leaves;
            --open;
        }
        else if (n.object == -1)
            ++open; // two subtrees replace this one
        else
            r.fail("a broadphase tree node is neither a leaf nor an internal node");
    }
    if (open != 0)
        r.fail("a broadphase tree ends inside a subtree");
    if (leaves != p.trees[k].leaves)
        r.fail("a broadphase tree's leaf count does not match its nodes");
}

ParsedManifold readManifold(BinaryReader& r)
{
    ParsedManifold m{r.value<SavedManifold>(), r.array<SavedPoint>(MANIFOLD_CACHE_SIZE)};
    const SavedManifold& s = m.record;
    if (s.swapped > 1 || !(s.breakingThreshold >= 0 && std::isfinite(double(s.breakingThreshold))) ||
        !std::isfinite(double(s.processingThreshold)))
        r.fail("a contact manifold's record is out of range");
    for (const SavedPoint& point : m.points)
        if (!std::all_of(point.vectors, point.vectors + 21,
                         [](btScalar v) { return std::isfinite(double(v)); }) ||
            !std::all_of(point.scalars, point.scalars + 14,
                         [](btScalar v) { return std::isfinite(double(v)); }))
            r.fail("a contact point is not finite");
    return m;
}

void writeManifold(BinaryWriter& w, const btPersistentManifold& manifold, bool swapped)
{
    SavedManifold saved;
    saved.breakingThreshold = manifold.getContactBreakingThreshold();
    saved.processingThreshold = manifold.getContactProcessingThreshold();
    saved.companionA = manifold.m_companionIdA;
    saved.companionB = manifold.m_companionIdB;
    saved.swapped = swapped;
    std::vector<SavedPoint> points;
    for (int k = 0; k < manifold.getNumContacts(); ++k)
        points.push_back(savePoint(manifold.getContactPoint(k)));
    w.value(saved);
    w.array(points);
}

// The inverse of writeManifold on a manifold of the same bodies.
void restoreManifold(btPersistentManifold& manifold, const ParsedManifold& saved)
{
    const SavedManifold& s = saved.record;
    manifold.clearManifold();
    manifold.setContactBreakingThreshold(s.breakingThreshold);
    manifold.setContactProcessingThreshold(s.processingThreshold);
    manifold.m_companionIdA = s.companionA;
    manifold.m_companionIdB = s.companionB;
    for (const SavedPoint& point : saved.points)
        manifold.addManifoldPoint(restorePoint(point), true);
}

Parsed parse(BinaryReader& r, btDiscreteDynamicsWorld& world, const CollisionObjectKey& key)
{
    Parsed p;
    if (const auto size = r.value<std::uint32_t>(); size != sizeof(btScalar))
        r.fail("the world was saved with " + std::to_string(8 * size) + "-bit Bullet, this build uses " +
               std::to_string(8 * sizeof(btScalar)) + "-bit");
    p.localTime = r.value<btScalar>();
    if (!(p.localTime >= 0 && std::isfinite(double(p.localTime))))
        r.fail("the world's unstepped time is negative or not finite");
    if (!dbvtOf(world) || !pairCacheOf(world))
        r.fail("restoring contacts needs a world with btDbvtBroadphase and btHashedOverlappingPairCache");

    // The objects, matched by key.
    const btCollisionObjectArray& current = world.getCollisionObjectArray();
    std::unordered_map<std::uint64_t, btCollisionObject*> byKey;
    for (int i = 0; i < current.size(); ++i)
        if (!byKey.emplace(key(*current[i]), current[i]).second)
            r.fail("two collision objects of the world share a key");
    const std::vector<std::uint64_t> keys = r.array<std::uint64_t>(std::uint64_t(current.size()));
    if (keys.size() != std::size_t(current.size()))
        r.fail("the save holds " + std::to_string(keys.size()) + " collision objects, the world " +
               std::to_string(current.size()));
    std::unordered_map<const btCollisionObject*, std::uint32_t> index;
    for (std::uint64_t k : keys)
    {
        const auto found = byKey.find(k);
        if (found == byKey.end())
            r.fail("saved collision object " + std::to_string(k) + " is not in the world");
        if (!index.emplace(found->second, std::uint32_t(p.objects.size())).second)
            r.fail("saved collision object " + std::to_string(k) + " is listed twice");
        p.objects.push_back(found->second);
    }
    p.moving = r.array<std::uint32_t>(keys.size());
    {
        std::set<const btCollisionObject*> saved, live;
        for (std::uint32_t i : p.moving)
            if (i >= p.objects.size() || !saved.insert(p.objects[i]).second)
                r.fail("the moving bodies' order names an object twice or none");
        const auto& bodies = world.getNonStaticRigidBodies();
        for (int i = 0; i < bodies.size(); ++i)
            live.insert(bodies[i]);
        if (saved != live)
            r.fail("the saved moving bodies are not the world's");
    }

    // The broad phase.
    p.proxies = r.array<SavedProxy>(keys.size());
    if (p.proxies.size() != keys.size())
        r.fail("the broadphase proxies do not match the objects");
    p.broadphase = r.value<SavedBroadphase>();
    std::set<std::int32_t> ids;
    for (const SavedProxy& s : p.proxies)
    {
        if (s.stage < 0 || s.stage >= kStages || !validBox(s.box))
            r.fail("a broadphase proxy's stage or box is out of range");
        if (!ids.insert(s.uniqueId).second || s.uniqueId > p.broadphase.generationId)
            r.fail("broadphase proxy ids repeat or pass the broadphase's last id");
    }
    const SavedBroadphase& b = p.broadphase;
    // Ranges Bullet's own use keeps them in, with room: the counters feed index and size arithmetic.
    constexpr std::int32_t kLarge = 1 << 30;
    auto within = [](std::int32_t v, std::int32_t lo, std::int32_t hi)
    {
        return v >= lo && v <= hi;
    };
    if (!within(b.stageCurrent, 0, btDbvtBroadphase::STAGECOUNT - 1) || !within(b.cleanupIndex, 0, kLarge) ||
        !within(b.fixedUpdates, 0, 100) || !within(b.dynamicUpdates, 0, 100) ||
        !within(b.cleanupUpdates, 0, 100) || !within(b.newPairs, 0, kLarge) ||
        !within(b.fixedLeft, 0, kLarge) || !within(b.generationId, 0, kLarge) ||
        !(b.prediction >= 0 && b.prediction <= 10) || !std::isfinite(double(b.updatesRatio)) ||
        b.deferredCollide > 1 || b.needCleanup > 1)
        r.fail("the broadphase's counters are out of range");
    std::vector<int> treeOf(keys.size(), -1);
    for (int k = 0; k < 2; ++k)
        readTree(r, p, k, treeOf);
    for (std::size_t i = 0; i < keys.size(); ++i)
        if (treeOf[i] != (p.proxies[i].stage == btDbvtBroadphase::STAGECOUNT ? 1 : 0))
            r.fail("a broadphase proxy is not in the tree of its stage");
    std::vector<char> listed(keys.size(), 0);
    for (int k = 0; k < kStages; ++k)
    {
        p.stages[k] = r.array<std::uint32_t>(keys.size());
        for (std::uint32_t i : p.stages[k])
            if (i >= keys.size() || listed[i] || p.proxies[i].stage != k)
                r.fail("a broadphase stage list names an object twice, none, or one of another stage");
            else
                listed[i] = 1;
    }
    if (std::count(listed.begin(), listed.end(), 0) != 0)
        r.fail("a broadphase proxy is in no stage list");

    // The pairs, their algorithms and manifolds.
    const std::vector<SavedPair> pairs = r.array<SavedPair>(keys.size() * keys.size());
    btHashedOverlappingPairCache& cache = *pairCacheOf(world);
    std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
    std::size_t manifoldCount = 0;
    for (const SavedPair& pair : pairs)
    {
        if (pair.object0 >= keys.size() || pair.object1 >= keys.size() || pair.object0 == pair.object1 ||
            !(p.proxies[pair.object0].uniqueId < p.proxies[pair.object1].uniqueId) ||
            !seen.emplace(pair.object0, pair.object1).second)
            r.fail("an overlapping pair names objects out of range, out of order or twice");
        if (!cache.needsBroadphaseCollision(proxyOf(*p.objects[pair.object0]),
                                            proxyOf(*p.objects[pair.object1])))
            r.fail("an overlapping pair is one the world's collision filter excludes");
        if (pair.manifolds < kNoAlgorithm || pair.manifolds > kMaxManifoldsPerPair || pair.shatter > 1 ||
            (pair.shatter && pair.manifolds < 0))
            r.fail("an overlapping pair's algorithm record is out of range");
        ParsedPair& parsed = p.pairs.emplace_back(ParsedPair{pair, std::nullopt, {}});
        if (pair.shatter)
            parsed.state = FracturableCollisionAlgorithm::readState(r, pair.manifolds);
        for (std::int32_t m = 0; m < pair.manifolds; ++m)
            parsed.manifolds.push_back(readManifold(r));
        manifoldCount += parsed.manifolds.size();
    }
    for (const SavedPredictive& bodies : r.array<SavedPredictive>(keys.size()))
    {
        if (bodies.object0 >= keys.size() || bodies.object1 >= keys.size())
            r.fail("a predictive contact manifold names no object");
        p.predictive.push_back({bodies, readManifold(r)});
    }
    manifoldCount += p.predictive.size();
    p.order = r.array<ManifoldSlot>(manifoldCount);
    std::set<std::pair<std::uint32_t, std::uint32_t>> placed;
    for (const ManifoldSlot& m : p.order)
        if ((m.pair == kPredictivePair
                 ? m.slot >= p.predictive.size()
                 : m.pair >= p.pairs.size() || m.slot >= p.pairs[m.pair].manifolds.size()) ||
            !placed.emplace(m.pair, m.slot).second)
            r.fail("the manifold order names a manifold twice or none");
    if (p.order.size() != manifoldCount)
        r.fail("the manifold order does not list every manifold");
    // Nothing may follow: a save with bytes after its end is refused before the world changes.
    if (r.remaining() != 0)
        r.fail(std::to_string(r.remaining()) + " bytes after the end of the world contacts");
    return p;
}

// Replaces both DBVTs with the saved ones: the same nodes, boxes and shape, so that the broad phase
// finds new pairs in the same order as the saved run.
void restoreTrees(btDbvtBroadphase& broadphase, const Parsed& p)
{
    for (int k = 0; k < 2; ++k)
    {
        btDbvt& tree = broadphase.m_sets[k];
        tree.clear();
        std::vector<btDbvtNode*> open; // internal nodes whose children are still to come
        for (const SavedNode& s : p.nodes[k])
        {
            auto* node = new (btAlignedAlloc(sizeof(btDbvtNode), 16)) btDbvtNode();
            node->volume = volume(s.box);
            node->childs[0] = node->childs[1] = nullptr;
            node->parent = open.empty() ? nullptr : open.back();
            if (node->parent)
            {
                btDbvtNode*& slot =
                    node->parent->childs[0] ? node->parent->childs[1] : node->parent->childs[0];
                slot = node;
                if (node->parent->childs[1])
                    open.pop_back(); // both children placed
            }
            else
                tree.m_root = node;
            if (s.object >= 0)
            {
                btDbvtProxy* proxy = proxyOf(*p.objects[std::size_t(s.object)]);
                node->data = proxy; // a leaf: childs[1] stays null
                proxy->leaf = node;
            }
            else
                open.push_back(node);
        }
        tree.m_leaves = p.trees[k].leaves;
        tree.m_lkhd = p.trees[k].lookahead;
        tree.m_opath = p.trees[k].optimizationPath;
    }
}

// Releases the world's predictive manifolds and removes its pairs (with their algorithms and manifolds).
void dropContacts(btDiscreteDynamicsWorld& world)
{
    btHashedOverlappingPairCache& cache = *pairCacheOf(world);
    btDispatcher& dispatcher = *world.getDispatcher();
    btAlignedObjectArray<btPersistentManifold*>& predictive = WorldAccess::predictive(world);
    for (int i = 0; i < predictive.size(); ++i)
        dispatcher.releaseManifold(predictive[i]);
    predictive.clear();
    while (cache.getNumOverlappingPairs() > 0)
    {
        const btBroadphasePair& last = cache.getOverlappingPairArray()[cache.getNumOverlappingPairs() - 1];
        cache.removeOverlappingPair(last.m_pProxy0, last.m_pProxy1, &dispatcher);
    }
}

void restorePairs(BinaryReader& r, btDiscreteDynamicsWorld& world, const Parsed& p);

// saveWorldContacts without the framing (see collision.h); throws shatter::Error naming `source`.
void writeWorldContacts(BinaryWriter& w, btDiscreteDynamicsWorld& world, const CollisionObjectKey& key,
                        const std::string& source)
{
    btDbvtBroadphase* broadphase = dbvtOf(world);
    btHashedOverlappingPairCache* cache = pairCacheOf(world);
    if (!broadphase || !cache)
        throw Error(source,
                    "saving contacts needs a world with btDbvtBroadphase and btHashedOverlappingPairCache");
    w.value<std::uint32_t>(sizeof(btScalar));
    w.value(WorldAccess::localTime(world));

    const btCollisionObjectArray& objects = world.getCollisionObjectArray();
    std::unordered_map<const btCollisionObject*, std::uint32_t> index;
    std::vector<std::uint64_t> keys;
    std::set<std::uint64_t> unique;
    for (int i = 0; i < objects.size(); ++i)
    {
        keys.push_back(key(*objects[i]));
        if (!unique.insert(keys.back()).second)
            throw Error(source, "two collision objects share the key " + std::to_string(keys.back()));
        index.emplace(objects[i], std::uint32_t(i));
    }
    w.array(keys);
    std::vector<std::uint32_t> moving;
    const auto& bodies = world.getNonStaticRigidBodies();
    for (int i = 0; i < bodies.size(); ++i)
        moving.push_back(index.at(bodies[i]));
    w.array(moving);

    std::vector<SavedProxy> proxies;
    for (int i = 0; i < objects.size(); ++i)
    {
        const btDbvtProxy* proxy = proxyOf(*objects[i]);
        SavedProxy s{proxy->m_uniqueId, proxy->stage, {}};
        putBox(proxy->m_aabbMin, proxy->m_aabbMax, s.box);
        proxies.push_back(s);
    }
    w.array(proxies);
    const btDbvtBroadphase& b = *broadphase;
    SavedBroadphase s;
    s.prediction = b.m_prediction;
    s.updatesRatio = b.m_updates_ratio;
    s.stageCurrent = b.m_stageCurrent;
    s.fixedUpdates = b.m_fupdates;
    s.dynamicUpdates = b.m_dupdates;
    s.cleanupUpdates = b.m_cupdates;
    s.newPairs = b.m_newpairs;
    s.fixedLeft = b.m_fixedleft;
    s.parseId = b.m_pid;
    s.cleanupIndex = b.m_cid;
    s.generationId = b.m_gid;
    s.updatesCall = b.m_updates_call;
    s.updatesDone = b.m_updates_done;
    s.deferredCollide = b.m_deferedcollide;
    s.needCleanup = b.m_needcleanup;
    w.value(s);
    for (const btDbvt& tree : b.m_sets)
        writeTree(w, tree, index);
    for (const btDbvtProxy* first : b.m_stageRoots)
    {
        std::vector<std::uint32_t> list;
        for (const btDbvtProxy* proxy = first; proxy; proxy = proxy->links[1])
            list.push_back(index.at(static_cast<const btCollisionObject*>(proxy->m_clientObject)));
        w.array(list);
    }

    // Pairs in the cache's order, each followed by its algorithm's state and manifolds.
    const btBroadphasePairArray& pairs = cache->getOverlappingPairArray();
    std::vector<SavedPair> records;
    std::vector<btManifoldArray> manifolds(std::size_t(pairs.size()));
    std::unordered_map<const btPersistentManifold*, ManifoldSlot> slots;
    for (int i = 0; i < pairs.size(); ++i)
    {
        const btBroadphasePair& pair = pairs[i];
        SavedPair record;
        record.object0 = index.at(static_cast<const btCollisionObject*>(pair.m_pProxy0->m_clientObject));
        record.object1 = index.at(static_cast<const btCollisionObject*>(pair.m_pProxy1->m_clientObject));
        if (pair.m_algorithm)
        {
            pair.m_algorithm->getAllContactManifolds(manifolds[std::size_t(i)]);
            record.manifolds = manifolds[std::size_t(i)].size();
            record.shatter = dynamic_cast<const FracturableCollisionAlgorithm*>(pair.m_algorithm) != nullptr;
        }
        for (int m = 0; m < manifolds[std::size_t(i)].size(); ++m)
            slots.emplace(manifolds[std::size_t(i)][m], ManifoldSlot{std::uint32_t(i), std::uint32_t(m)});
        records.push_back(record);
    }
    w.array(records);
    for (int i = 0; i < pairs.size(); ++i)
    {
        if (records[std::size_t(i)].shatter)
            static_cast<const FracturableCollisionAlgorithm*>(pairs[i].m_algorithm)->writeState(w);
        const btManifoldArray& list = manifolds[std::size_t(i)];
        for (int m = 0; m < list.size(); ++m)
            writeManifold(w, *list[m], list[m]->getBody0() != pairs[i].m_pProxy0->m_clientObject);
    }
    // The continuous collision's manifolds of the last step, which the next step releases first.
    const btAlignedObjectArray<btPersistentManifold*>& predictiveList = WorldAccess::predictive(world);
    std::unordered_map<const btPersistentManifold*, std::uint32_t> predictive;
    std::vector<SavedPredictive> predictiveRecords;
    for (int i = 0; i < predictiveList.size(); ++i)
    {
        predictive.emplace(predictiveList[i], std::uint32_t(i));
        predictiveRecords.push_back(
            {index.at(predictiveList[i]->getBody0()), index.at(predictiveList[i]->getBody1())});
    }
    w.array(predictiveRecords);
    for (int i = 0; i < predictiveList.size(); ++i)
        writeManifold(w, *predictiveList[i], false);
    btDispatcher& dispatcher = *world.getDispatcher();
    std::vector<ManifoldSlot> order;
    for (int i = 0; i < dispatcher.getNumManifolds(); ++i)
    {
        const auto found = slots.find(dispatcher.getManifoldByIndexInternal(i));
        if (found != slots.end())
            order.push_back(found->second);
        else if (const auto p = predictive.find(dispatcher.getManifoldByIndexInternal(i));
                 p != predictive.end())
            order.push_back({kPredictivePair, p->second});
        else
            throw Error(source, "a contact manifold of the world belongs to no overlapping pair");
    }
    w.array(order);
}

// restoreWorldContacts without the framing: everything is read and checked (parse) before the world
// changes.
void readWorldContacts(BinaryReader& r, btDiscreteDynamicsWorld& world, const CollisionObjectKey& key)
{
    const Parsed p = parse(r, world, key);
    btDbvtBroadphase& broadphase = *dbvtOf(world);
    btDispatcher& dispatcher = *world.getDispatcher();

    // The world's own contacts go first, while the proxies still have the ids the cache hashed them by.
    dropContacts(world);
    if (dispatcher.getNumManifolds() != 0)
        r.fail("the world holds contact manifolds that belong to no overlapping pair");

    // The broad phase: ids, boxes, stages, trees, counters.
    for (std::size_t i = 0; i < p.objects.size(); ++i)
    {
        btDbvtProxy* proxy = proxyOf(*p.objects[i]);
        const SavedProxy& s = p.proxies[i];
        proxy->m_uniqueId = s.uniqueId;
        proxy->stage = s.stage;
        proxy->m_aabbMin = btVector3(s.box[0], s.box[1], s.box[2]);
        proxy->m_aabbMax = btVector3(s.box[3], s.box[4], s.box[5]);
    }
    restoreTrees(broadphase, p);
    for (int k = 0; k < kStages; ++k)
    {
        btDbvtProxy* previous = nullptr;
        broadphase.m_stageRoots[k] = nullptr;
        for (std::uint32_t i : p.stages[k])
        {
            btDbvtProxy* proxy = proxyOf(*p.objects[i]);
            proxy->links[0] = previous;
            proxy->links[1] = nullptr;
            (previous ? previous->links[1] : broadphase.m_stageRoots[k]) = proxy;
            previous = proxy;
        }
    }
    const SavedBroadphase& b = p.broadphase;
    broadphase.m_prediction = b.prediction;
    broadphase.m_updates_ratio = b.updatesRatio;
    broadphase.m_stageCurrent = b.stageCurrent;
    broadphase.m_fupdates = b.fixedUpdates;
    broadphase.m_dupdates = b.dynamicUpdates;
    broadphase.m_cupdates = b.cleanupUpdates;
    broadphase.m_newpairs = b.newPairs;
    broadphase.m_fixedleft = b.fixedLeft;
    broadphase.m_pid = b.parseId;
    broadphase.m_cid = b.cleanupIndex;
    broadphase.m_gid = b.generationId;
    broadphase.m_updates_call = b.updatesCall;
    broadphase.m_updates_done = b.updatesDone;
    broadphase.m_deferedcollide = b.deferredCollide != 0;
    broadphase.m_needcleanup = b.needCleanup != 0;
    WorldAccess::localTime(world) = p.localTime;

    // The world's arrays in their saved order (the island manager and the integration walk them).
    btCollisionObjectArray& objects = world.getCollisionObjectArray();
    for (std::size_t i = 0; i < p.objects.size(); ++i)
    {
        objects[int(i)] = p.objects[i];
        p.objects[i]->setWorldArrayIndex(int(i));
    }
    auto& moving = world.getNonStaticRigidBodies();
    for (std::size_t j = 0; j < p.moving.size(); ++j)
        moving[int(j)] = btRigidBody::upcast(p.objects[p.moving[j]]);

    // The pairs in their saved order, then their algorithms and manifolds. What only Bullet can refuse
    // (an algorithm that makes other manifolds than the save's) leaves the world without contacts.
    try
    {
        restorePairs(r, world, p);
    }
    catch (...)
    {
        dropContacts(world);
        throw;
    }
}

void restorePairs(BinaryReader& r, btDiscreteDynamicsWorld& world, const Parsed& p)
{
    btHashedOverlappingPairCache& cache = *pairCacheOf(world);
    btDispatcher& dispatcher = *world.getDispatcher();
    for (const ParsedPair& pair : p.pairs)
        cache.addOverlappingPair(proxyOf(*p.objects[pair.record.object0]),
                                 proxyOf(*p.objects[pair.record.object1]));
    std::vector<std::vector<btPersistentManifold*>> made(p.pairs.size());
    for (std::size_t i = 0; i < p.pairs.size(); ++i)
    {
        const SavedPair& saved = p.pairs[i].record;
        if (saved.manifolds == kNoAlgorithm)
            continue;
        btBroadphasePair& pair = cache.getOverlappingPairArray()[int(i)];
        btCollisionObject* a = p.objects[saved.object0];
        btCollisionObject* c = p.objects[saved.object1];
        btCollisionObjectWrapper w0(nullptr, a->getCollisionShape(), a, a->getWorldTransform(), -1, -1);
        btCollisionObjectWrapper w1(nullptr, c->getCollisionShape(), c, c->getWorldTransform(), -1, -1);
        // Some of Bullet's algorithms make their manifold in their constructor only when the pair is
        // awake (btDispatcher::needsCollision): one saved with a manifold was made awake, one saved
        // without was made asleep. The bodies wear that state while the algorithm is made.
        const int states[2] = {a->getActivationState(), c->getActivationState()};
        const int wear = saved.manifolds > 0 ? ACTIVE_TAG : ISLAND_SLEEPING;
        a->forceActivationState(wear);
        c->forceActivationState(wear);
        pair.m_algorithm = dispatcher.findAlgorithm(&w0, &w1, nullptr, BT_CONTACT_POINT_ALGORITHMS);
        auto* shatter = dynamic_cast<FracturableCollisionAlgorithm*>(pair.m_algorithm);
        if (pair.m_algorithm && !shatter && saved.manifolds > 0)
        {
            // Others make it in their first call; their other state lives for one call. The manifold's
            // contents are replaced below.
            btManifoldResult result(&w0, &w1);
            pair.m_algorithm->processCollision(&w0, &w1, world.getDispatchInfo(), &result);
        }
        a->forceActivationState(states[0]);
        c->forceActivationState(states[1]);
        if (auto* gimpact = dynamic_cast<btGImpactCollisionAlgorithm*>(pair.m_algorithm);
            gimpact && saved.manifolds == 1 && !GImpactAccess::manifold(*gimpact))
        {
            const bool swapped = p.pairs[i].manifolds[0].record.swapped != 0;
            GImpactAccess::manifold(*gimpact) = dispatcher.getNewManifold(swapped ? c : a, swapped ? a : c);
        }
        if (!pair.m_algorithm)
            r.fail("the world's dispatcher has no collision algorithm for a saved pair");
        if (bool(shatter) != bool(saved.shatter))
            r.fail("a saved pair's collision algorithm is not the one the world's dispatcher makes for it");
        if (shatter && !shatter->restoreState(*p.pairs[i].state, a, c))
            r.fail("a pair's contact budget is outside the collision settings' range");
        btManifoldArray list;
        pair.m_algorithm->getAllContactManifolds(list);
        if (list.size() != saved.manifolds)
            r.fail("a saved pair's collision algorithm holds " + std::to_string(list.size()) +
                   " manifolds, the save " + std::to_string(saved.manifolds));
        for (int m = 0; m < list.size(); ++m)
        {
            btPersistentManifold& manifold = *list[m];
            const ParsedManifold& s = p.pairs[i].manifolds[std::size_t(m)];
            if ((manifold.getBody0() != a) != (s.record.swapped != 0))
                r.fail("a saved contact manifold has its bodies the other way round");
            restoreManifold(manifold, s);
            made[i].push_back(&manifold);
        }
    }
    std::vector<btPersistentManifold*> predictive;
    for (const ParsedPredictive& saved : p.predictive)
    {
        btPersistentManifold* manifold =
            dispatcher.getNewManifold(p.objects[saved.bodies.object0], p.objects[saved.bodies.object1]);
        restoreManifold(*manifold, saved.manifold);
        predictive.push_back(manifold);
        WorldAccess::predictive(world).push_back(manifold);
    }

    // The dispatcher's manifold array in its saved order (the solver's order follows it).
    if (std::size_t(dispatcher.getNumManifolds()) != p.order.size())
        r.fail("the restored pairs made " + std::to_string(dispatcher.getNumManifolds()) +
               " contact manifolds, the save lists " + std::to_string(p.order.size()));
    btPersistentManifold** array = dispatcher.getInternalManifoldPointer();
    for (std::size_t i = 0; i < p.order.size(); ++i)
    {
        array[i] = p.order[i].pair == kPredictivePair ? predictive[p.order[i].slot]
                                                      : made[p.order[i].pair][p.order[i].slot];
        array[i]->m_index1a = int(i);
    }
}

} // namespace

std::vector<std::byte> worldContactsFileBytes(std::span<const std::byte> payload)
{
    return framedFileBytes(kWorldContactsFile, payload);
}

std::vector<std::byte> saveWorldContacts(btDiscreteDynamicsWorld& world, const CollisionObjectKey& key)
{
    BinaryWriter w;
    writeWorldContacts(w, world, key, "saveWorldContacts");
    return worldContactsFileBytes(w.bytes());
}

void restoreWorldContacts(btDiscreteDynamicsWorld& world, std::span<const std::byte> bytes,
                          const CollisionObjectKey& key, const std::string& source)
{
    BinaryReader r(framedPayload(bytes, kWorldContactsFile, source), source);
    readWorldContacts(r, world, key);
}

} // namespace shatter
