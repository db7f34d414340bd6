// ParallelCollisionDispatcher (collision.h): the narrow phase of a stock btDiscreteDynamicsWorld on
// several threads, with the results of the serial dispatcher.
//
// Debian's Bullet is built without BT_THREADSAFE, so btCollisionDispatcherMt and btParallelFor run
// serially there; this dispatcher does what btCollisionDispatcherMt does with oneTBB instead, and keeps
// every step deterministic:
//  1. serially, in the pair cache's own order (processAllOverlappingPairs, which honours
//     m_deterministicOverlappingPairs): collect the pairs and create the missing algorithms, so that
//     the create functions never run concurrently;
//  2. in parallel: each pair's near callback (one pair on one thread at a time; an algorithm keeps its
//     state per pair);
//  3. serially again: the manifolds that pairs created or released in steps 1-2 are added to and
//     removed from m_manifoldsPtr in the order of their pairs (and of the calls within a pair). That
//     replays the array operations of the serial dispatcher, so m_manifoldsPtr — the order the solver
//     and the island manager see — is exactly what it would have built, whatever the thread count.
// The pools (manifolds, algorithms) are not thread-safe in such a build: their use is locked.
// Pairs with a GImpact shape stay on the calling thread: GImpact's primitive managers count locks on
// the shape without synchronisation, so two pairs sharing a shape must not run at once. A custom near
// callback and continuous (time of impact) dispatch run serially too: the first may not be thread-safe,
// the second writes the shared dispatch info. On one thread the same three steps run on the calling
// thread: every pair is then made before any runs, as on several, so that the count of live pairs that
// shares CollisionSettings::maxContactsPerStep out is the same whatever the thread count.
#include "shatter/collision.h"

#include "shatter/error.h"
#include "thread_sanitizer.h"

#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>
#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionShapes/btCollisionShape.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace shatter
{

namespace
{

/// The pair the current thread is processing in a parallel dispatch, and how many manifolds it has
/// created or released so far: the key that orders them afterwards.
struct PairCursor
{
    const void* dispatcher = nullptr;
    int pair = 0;
    int sequence = 0;
};
thread_local PairCursor tlsCursor;

// ThreadSanitizer's fork and join tokens (thread_sanitizer.h): at namespace scope, since a task must
// acquire before it reads anything from its closure.
char tsanFork = 0, tsanJoin = 0;

/// Collects the pairs in the cache's processing order; removes none.
struct PairCollector : btOverlapCallback
{
    std::vector<btBroadphasePair*>& pairs;
    explicit PairCollector(std::vector<btBroadphasePair*>& out) : pairs(out) {}
    bool processOverlap(btBroadphasePair& pair) override
    {
        pairs.push_back(&pair);
        return false;
    }
};

bool hasGImpact(const btCollisionObject& object)
{
    return object.getCollisionShape()->getShapeType() == GIMPACT_SHAPE_PROXYTYPE;
}

} // namespace

struct ParallelCollisionDispatcher::Impl
{
    /// A manifold a pair created or released during steps 1-2 of a dispatch.
    struct Staged
    {
        int pair;
        int sequence;
        btPersistentManifold* manifold;
        bool release;
        bool operator<(const Staged& o) const
        {
            return pair != o.pair ? pair < o.pair : sequence < o.sequence;
        }
    };

    unsigned threads = 1;
    std::unique_ptr<tbb::task_arena> arena; // null while threads == 1
    bool staging = false;                   // inside steps 1-2 of a dispatch
    std::mutex mutex;                       // the pools and `staged` while staging
    std::vector<Staged> staged;
    std::vector<btBroadphasePair*> pairs;
    std::vector<int> parallelPairs; // indices into `pairs`
    std::vector<int> nextSequence;  // per entry of parallelPairs: the pair's sequence after step 1
    std::vector<tbb::task_handle>
        helpers; // step 2's tasks besides the caller's (kept: no per-step allocation)
};

ParallelCollisionDispatcher::ParallelCollisionDispatcher(btCollisionConfiguration* configuration, int threads)
    : btCollisionDispatcher(configuration), impl(std::make_unique<Impl>())
{
    setThreads(threads);
}

ParallelCollisionDispatcher::~ParallelCollisionDispatcher() = default;

void ParallelCollisionDispatcher::setThreads(int threads)
{
    if (threads < 0)
        throw Error("ParallelCollisionDispatcher",
                    "threads must be 0 (all cores) or positive, got " + std::to_string(threads));
    // At most the threads oneTBB lets a process run (asking for more only makes it warn on stderr).
    const unsigned limit = unsigned(std::max<std::size_t>(
        1, tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism)));
    const unsigned n =
        std::min(threads == 0 ? unsigned(tbb::info::default_concurrency()) : unsigned(threads), limit);
    if (n == impl->threads && (n == 1) == !impl->arena)
        return;
    impl->threads = n;
    impl->arena = n > 1 ? std::make_unique<tbb::task_arena>(int(n)) : nullptr;
}

int ParallelCollisionDispatcher::threads() const
{
    return int(impl->threads);
}

void ParallelCollisionDispatcher::dispatchAllCollisionPairs(btOverlappingPairCache* pairCache,
                                                            const btDispatcherInfo& info,
                                                            btDispatcher* dispatcher)
{
    const bool defaultCallback = getNearCallback() == &btCollisionDispatcher::defaultNearCallback;
    if (!defaultCallback || info.m_dispatchFunc != btDispatcherInfo::DISPATCH_DISCRETE)
    {
        btCollisionDispatcher::dispatchAllCollisionPairs(pairCache, info, dispatcher);
        return;
    }

    // Step 1: the pairs in the cache's order, their algorithms made here (defaultNearCallback's first half).
    Impl& m = *impl;
    m.pairs.clear();
    PairCollector collector(m.pairs);
    pairCache->processAllOverlappingPairs(&collector, dispatcher, info);
    m.parallelPairs.clear();
    m.nextSequence.clear();
    m.staged.clear();
    m.staging = true;
    for (int i = 0; i < int(m.pairs.size()); ++i)
    {
        btBroadphasePair& pair = *m.pairs[std::size_t(i)];
        auto* a = static_cast<btCollisionObject*>(pair.m_pProxy0->m_clientObject);
        auto* b = static_cast<btCollisionObject*>(pair.m_pProxy1->m_clientObject);
        if (!needsCollision(a, b))
            continue;
        tlsCursor = {this, i, 0};
        if (!pair.m_algorithm)
        {
            btCollisionObjectWrapper wa(nullptr, a->getCollisionShape(), a, a->getWorldTransform(), -1, -1);
            btCollisionObjectWrapper wb(nullptr, b->getCollisionShape(), b, b->getWorldTransform(), -1, -1);
            pair.m_algorithm = findAlgorithm(&wa, &wb, nullptr, BT_CONTACT_POINT_ALGORITHMS);
        }
        if (pair.m_algorithm && (hasGImpact(*a) || hasGImpact(*b)))
            defaultNearCallback(pair, *this, info); // on this thread, before the others start
        else if (pair.m_algorithm)
        {
            m.parallelPairs.push_back(i);
            m.nextSequence.push_back(tlsCursor.sequence);
        }
    }
    tlsCursor = {};

    // Step 2: the near callbacks, in parallel. One task per thread, each taking the next pair from a
    // shared counter (pairs differ widely in cost). The tasks are made before the fork point, so that
    // ThreadSanitizer sees everything they read written before it (thread_sanitizer.h).
    std::atomic<std::size_t> next{0};
    auto work = [&m, &next, &info, this]
    {
        tsanAcquire(&tsanFork);
        for (std::size_t k; (k = next.fetch_add(1, std::memory_order_relaxed)) < m.parallelPairs.size();)
        {
            const int i = m.parallelPairs[k];
            tlsCursor = {this, i, m.nextSequence[k]};
            defaultNearCallback(*m.pairs[std::size_t(i)], *this, info);
        }
        tlsCursor = {};
        tsanRelease(&tsanJoin);
    };
    if (!m.arena)
        work();
    else
        m.arena->execute(
            [&]
            {
                tbb::task_group group;
                m.helpers.clear();
                for (unsigned t = 1; t < m.threads; ++t)
                    m.helpers.push_back(group.defer(work));
                tsanRelease(&tsanFork);
                for (tbb::task_handle& h : m.helpers)
                    group.run(std::move(h));
                work();
                group.wait();
            });
    tsanAcquire(&tsanJoin);
    m.staging = false;

    // Step 3: the serial dispatcher's array operations, in its order.
    std::sort(m.staged.begin(), m.staged.end());
    for (const Impl::Staged& s : m.staged)
    {
        if (s.release)
            btCollisionDispatcher::releaseManifold(s.manifold);
        else
        {
            s.manifold->m_index1a = m_manifoldsPtr.size();
            m_manifoldsPtr.push_back(s.manifold);
        }
    }
}

btPersistentManifold* ParallelCollisionDispatcher::getNewManifold(const btCollisionObject* b0,
                                                                  const btCollisionObject* b1)
{
    if (!impl->staging)
        return btCollisionDispatcher::getNewManifold(b0, b1);
    PairCursor& cursor = tlsCursor;
    SHATTER_ASSERT(cursor.dispatcher == this, "a manifold made outside the pair loop of a parallel dispatch");
    const std::lock_guard lock(impl->mutex);
    // Bullet's own construction (thresholds, pool), then out of the array until step 3.
    btPersistentManifold* manifold = btCollisionDispatcher::getNewManifold(b0, b1);
    m_manifoldsPtr.pop_back();
    impl->staged.push_back({cursor.pair, cursor.sequence++, manifold, false});
    return manifold;
}

void ParallelCollisionDispatcher::releaseManifold(btPersistentManifold* manifold)
{
    if (!impl->staging)
    {
        btCollisionDispatcher::releaseManifold(manifold);
        return;
    }
    // Kept until step 3: releasing swaps the last manifold into the freed slot, so the array's order
    // would depend on the threads. The pair's algorithm no longer refers to it.
    PairCursor& cursor = tlsCursor;
    SHATTER_ASSERT(cursor.dispatcher == this,
                   "a manifold released outside the pair loop of a parallel dispatch");
    clearManifold(manifold);
    const std::lock_guard lock(impl->mutex);
    impl->staged.push_back({cursor.pair, cursor.sequence++, manifold, true});
}

void* ParallelCollisionDispatcher::allocateCollisionAlgorithm(int size)
{
    if (!impl->staging)
        return btCollisionDispatcher::allocateCollisionAlgorithm(size);
    const std::lock_guard lock(impl->mutex);
    return btCollisionDispatcher::allocateCollisionAlgorithm(size);
}

void ParallelCollisionDispatcher::freeCollisionAlgorithm(void* ptr)
{
    if (!impl->staging)
    {
        btCollisionDispatcher::freeCollisionAlgorithm(ptr);
        return;
    }
    const std::lock_guard lock(impl->mutex);
    btCollisionDispatcher::freeCollisionAlgorithm(ptr);
}

} // namespace shatter
