// registerCollisionAlgorithms and makeCollisionConfiguration (bullet_plugin.h).
//
// Ownership. Bullet's dispatcher keeps raw pointers to create functions and needs them for as long as
// it lives, and Bullet has no hook to tell us when it dies. GImpact answers with function-level statics,
// which would make the settings global. Here each registration (its create functions, settings and the
// cache of the other shapes' fields) is kept in a small table keyed by the dispatcher, so settings stay
// per dispatcher; unregisterCollisionAlgorithms frees it, and anything left is freed at exit. Algorithms
// hold the shared context themselves, so a re-registration never pulls it from under a live pair.
#include "bullet_plugin.h"

#include "fracturable_collision_algorithm.h"
#include "shape_field.h"
#include "shatter/error.h"

#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <LinearMath/btPoolAllocator.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <vector>

namespace shatter
{

namespace
{

struct Registration
{
    std::shared_ptr<const CollisionContext> context;
    // Two per table entry we own (contact points, closest points); indexed [table][other type][order].
    std::vector<std::unique_ptr<FracturableCollisionAlgorithm::CreateFunc>> createFuncs;
};

std::mutex registryMutex;
std::map<const btCollisionDispatcher*, std::unique_ptr<Registration>>& registry()
{
    static std::map<const btCollisionDispatcher*, std::unique_ptr<Registration>> table;
    return table;
}

void checkSettings(const CollisionSettings& s)
{
    if (!(s.toleranceFraction > 0) || !(s.toleranceFraction <= 0.1))
        throw Error("CollisionSettings::toleranceFraction", "must be in (0, 0.1]");
    if (s.initialBudget < 1)
        throw Error("CollisionSettings::initialBudget", "must be at least 1");
    if (s.maxContactsPerPair < s.initialBudget)
        throw Error("CollisionSettings::maxContactsPerPair", "must be at least initialBudget");
    if (s.candidateFactor < 1 || s.candidateFactor > 64)
        throw Error("CollisionSettings::candidateFactor", "must be in [1, 64]");
    if (s.mode != ContactMode::Adaptive && s.mode != ContactMode::Full && s.mode != ContactMode::FixedBudget)
        throw Error("CollisionSettings::mode", "unknown contact mode");
    if (s.order != TraversalOrder::MaxDistance && s.order != TraversalOrder::BreadthFirst)
        throw Error("CollisionSettings::order", "unknown traversal order");
}

bool ours(int type)
{
    return type != COMPOUND_SHAPE_PROXYTYPE;
}

} // namespace

void registerCollisionAlgorithms(btCollisionDispatcher& dispatcher, const CollisionSettings& settings)
{
    checkSettings(settings);
    btCollisionConfiguration* config = dispatcher.getCollisionConfiguration();
    if (!config)
        throw Error("registerCollisionAlgorithms", "the dispatcher has no collision configuration");

    auto context = std::make_shared<CollisionContext>();
    context->settings = settings;
    context->fields = std::make_shared<ShapeFieldCache>(settings.otherShapes);
    {
        // A re-registration keeps counting into the same statistics.
        const std::lock_guard<std::mutex> lock(registryMutex);
        const auto it = registry().find(&dispatcher);
        context->counters =
            it != registry().end() ? it->second->context->counters : std::make_shared<CollisionCounters>();
    }

    auto registration = std::make_unique<Registration>();
    registration->context = context;
    const int poolElementSize =
        config->getCollisionAlgorithmPool() ? config->getCollisionAlgorithmPool()->getElementSize() : 0;
    constexpr int custom = CUSTOM_CONCAVE_SHAPE_TYPE;
    for (int closest = 0; closest < 2; ++closest)
        for (int type = 0; type < MAX_BROADPHASE_COLLISION_TYPES; ++type)
        {
            if (!ours(type))
                continue;
            for (int order = 0; order < 2; ++order)
            {
                if (type == custom && order == 1)
                    continue; // (CUSTOM, CUSTOM) is one entry
                const int t0 = order == 0 ? type : custom;
                const int t1 = order == 0 ? custom : type;
                auto f = std::make_unique<FracturableCollisionAlgorithm::CreateFunc>();
                f->context = context;
                f->closestPoints = closest != 0;
                f->poolElementSize = poolElementSize;
                f->fallback = closest ? config->getClosestPointsAlgorithmCreateFunc(t0, t1)
                                      : config->getCollisionAlgorithmCreateFunc(t0, t1);
                if (closest)
                    dispatcher.registerClosestPointsCreateFunc(t0, t1, f.get());
                else
                    dispatcher.registerCollisionCreateFunc(t0, t1, f.get());
                registration->createFuncs.push_back(std::move(f));
            }
        }

    // The previous registration (if any) is freed only after its entries were overwritten above.
    const std::lock_guard<std::mutex> lock(registryMutex);
    registry()[&dispatcher] = std::move(registration);
}

void unregisterCollisionAlgorithms(btCollisionDispatcher& dispatcher)
{
    btCollisionConfiguration* config = dispatcher.getCollisionConfiguration();
    constexpr int custom = CUSTOM_CONCAVE_SHAPE_TYPE;
    for (int type = 0; type < MAX_BROADPHASE_COLLISION_TYPES; ++type)
    {
        if (!ours(type))
            continue;
        dispatcher.registerCollisionCreateFunc(type, custom,
                                               config->getCollisionAlgorithmCreateFunc(type, custom));
        dispatcher.registerCollisionCreateFunc(custom, type,
                                               config->getCollisionAlgorithmCreateFunc(custom, type));
        dispatcher.registerClosestPointsCreateFunc(type, custom,
                                                   config->getClosestPointsAlgorithmCreateFunc(type, custom));
        dispatcher.registerClosestPointsCreateFunc(custom, type,
                                                   config->getClosestPointsAlgorithmCreateFunc(custom, type));
    }
    const std::lock_guard<std::mutex> lock(registryMutex);
    registry().erase(&dispatcher);
}

void forgetShape(btCollisionDispatcher& dispatcher, const btCollisionShape* shape)
{
    const std::lock_guard<std::mutex> lock(registryMutex);
    const auto it = registry().find(&dispatcher);
    if (it != registry().end())
        it->second->context->fields->forget(shape);
}

CollisionStatistics collisionStatistics(const btCollisionDispatcher& dispatcher)
{
    const std::lock_guard<std::mutex> lock(registryMutex);
    const auto it = registry().find(&dispatcher);
    if (it == registry().end())
        return {};
    const CollisionCounters& c = *it->second->context->counters;
    return {c.outputContacts.load(std::memory_order_relaxed),
            c.collidingPoints.load(std::memory_order_relaxed), c.pairs.load(std::memory_order_relaxed)};
}

void resetCollisionStatistics(btCollisionDispatcher& dispatcher)
{
    const std::lock_guard<std::mutex> lock(registryMutex);
    const auto it = registry().find(&dispatcher);
    if (it == registry().end())
        return;
    CollisionCounters& c = *it->second->context->counters;
    c.outputContacts.store(0, std::memory_order_relaxed);
    c.collidingPoints.store(0, std::memory_order_relaxed);
    c.pairs.store(0, std::memory_order_relaxed);
}

std::size_t collisionAlgorithmSize()
{
    return sizeof(FracturableCollisionAlgorithm);
}

std::unique_ptr<btDefaultCollisionConfiguration>
makeCollisionConfiguration(btDefaultCollisionConstructionInfo info)
{
    info.m_customCollisionAlgorithmMaxElementSize =
        std::max(info.m_customCollisionAlgorithmMaxElementSize, int(collisionAlgorithmSize()));
    return std::make_unique<btDefaultCollisionConfiguration>(info);
}

} // namespace shatter
