// CollisionRegistration and makeCollisionConfiguration (shatter/collision.h), and the comparison
// variants of the narrow phase (comparison_variants.h).
//
// Ownership. Bullet's dispatcher keeps raw pointers to create functions and needs them for as long as
// they are registered, and Bullet has no hook to tell us when it dies. The registration object owns
// its create functions and takes them out of the dispatcher in its destructor, so their lifetime is the
// user's RAII object, not a global table. The create functions hold the shared context (settings,
// variants, the other shapes' fields, the counters) and hand it to every algorithm they create, so a
// pair still alive after the registration (or after a change of variants) keeps what it reads.
#include "fracturable_collision_algorithm.h"
#include "internal_access.h"
#include "shape_field.h"
#include "shatter/collision.h"
#include "shatter/error.h"

#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <LinearMath/btPoolAllocator.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace shatter
{

namespace
{

void checkSettings(const CollisionSettings& s)
{
    if (!(s.toleranceFraction > 0) || !(s.toleranceFraction <= 0.1))
        throw Error("CollisionSettings::toleranceFraction", "must be in (0, 0.1]");
    if (s.initialBudget < 1)
        throw Error("CollisionSettings::initialBudget", "must be at least 1");
    if (s.maxContactsPerPair < s.initialBudget)
        throw Error("CollisionSettings::maxContactsPerPair", "must be at least initialBudget");
    if (s.maxContactsPerStep < 1)
        throw Error("CollisionSettings::maxContactsPerStep", "must be at least 1");
    if (s.candidateFactor < 1 || s.candidateFactor > 64)
        throw Error("CollisionSettings::candidateFactor", "must be in [1, 64]");
    // ShapeFieldCache checks meshThickness and shellPoints.
}

void checkVariants(const ComparisonVariants& v)
{
    if (v.contacts != ContactMode::Adaptive && v.contacts != ContactMode::Full &&
        v.contacts != ContactMode::FixedBudget)
        throw Error("ComparisonVariants::contacts", "unknown contact mode");
    if (v.order != TraversalOrder::MaxDistance && v.order != TraversalOrder::BreadthFirst)
        throw Error("ComparisonVariants::order", "unknown traversal order");
}

// Calls entry(closest, t0, t1) for every dispatcher entry Shatter takes over, in a fixed order: both
// tables (contact points, closest points), every (type, CUSTOM_CONCAVE) and (CUSTOM_CONCAVE, type)
// pair once. Compounds are left to Bullet's compound algorithm, which reaches these entries child by
// child.
template <class Entry>
void forEachEntry(Entry&& entry)
{
    constexpr int custom = CUSTOM_CONCAVE_SHAPE_TYPE;
    for (int closest = 0; closest < 2; ++closest)
        for (int type = 0; type < MAX_BROADPHASE_COLLISION_TYPES; ++type)
        {
            if (type == COMPOUND_SHAPE_PROXYTYPE)
                continue;
            entry(closest != 0, type, custom);
            if (type != custom) // (CUSTOM, CUSTOM) is one entry
                entry(closest != 0, custom, type);
        }
}

} // namespace

struct CollisionRegistration::Impl
{
    btCollisionDispatcher* dispatcher = nullptr;
    std::shared_ptr<const CollisionContext> context;
    // Two per table entry we own (contact points, closest points).
    std::vector<std::unique_ptr<FracturableCollisionAlgorithm::CreateFunc>> createFuncs;

    // Puts create functions carrying `next` into the dispatcher's entries; the old ones are freed only
    // after their entries were overwritten.
    void install(std::shared_ptr<const CollisionContext> next)
    {
        btCollisionConfiguration* config = dispatcher->getCollisionConfiguration();
        const int poolElementSize =
            config->getCollisionAlgorithmPool() ? config->getCollisionAlgorithmPool()->getElementSize() : 0;
        std::vector<std::unique_ptr<FracturableCollisionAlgorithm::CreateFunc>> made;
        forEachEntry(
            [&](bool closest, int t0, int t1)
            {
                auto f = std::make_unique<FracturableCollisionAlgorithm::CreateFunc>();
                f->context = next;
                f->closestPoints = closest;
                f->poolElementSize = poolElementSize;
                f->fallback = closest ? config->getClosestPointsAlgorithmCreateFunc(t0, t1)
                                      : config->getCollisionAlgorithmCreateFunc(t0, t1);
                made.push_back(std::move(f));
            });
        // Everything that can throw (allocation) is done; now the dispatcher's entries.
        std::size_t i = 0;
        forEachEntry(
            [&](bool closest, int t0, int t1)
            {
                if (closest)
                    dispatcher->registerClosestPointsCreateFunc(t0, t1, made[i++].get());
                else
                    dispatcher->registerCollisionCreateFunc(t0, t1, made[i++].get());
            });
        createFuncs = std::move(made);
        context = std::move(next);
    }

    void uninstall() noexcept
    {
        btCollisionConfiguration* config = dispatcher->getCollisionConfiguration();
        forEachEntry(
            [&](bool closest, int t0, int t1)
            {
                if (closest)
                    dispatcher->registerClosestPointsCreateFunc(
                        t0, t1, config->getClosestPointsAlgorithmCreateFunc(t0, t1));
                else
                    dispatcher->registerCollisionCreateFunc(t0, t1,
                                                            config->getCollisionAlgorithmCreateFunc(t0, t1));
            });
        createFuncs.clear();
    }
};

CollisionRegistration::CollisionRegistration(btCollisionDispatcher& dispatcher,
                                             const CollisionSettings& settings)
    : impl(std::make_unique<Impl>())
{
    checkSettings(settings);
    if (!dispatcher.getCollisionConfiguration())
        throw Error("CollisionRegistration", "the dispatcher has no collision configuration");
    auto context = std::make_shared<CollisionContext>();
    context->settings = settings;
    context->fields = std::make_shared<ShapeFieldCache>(
        ShapeFieldSettings{.meshThickness = settings.meshThickness, .shellPoints = settings.shellPoints});
    context->counters = std::make_shared<CollisionCounters>();
    impl->dispatcher = &dispatcher;
    impl->install(std::move(context));
}

CollisionRegistration::~CollisionRegistration()
{
    impl->uninstall();
}

void CollisionRegistration::setSettings(const CollisionSettings& settings)
{
    checkSettings(settings);
    const CollisionContext& current = *impl->context;
    auto next = std::make_shared<CollisionContext>(
        CollisionContext{settings, current.mode, current.order, current.fields, current.counters});
    const ShapeFieldSettings& fields = current.fields->settings();
    if (!(fields.meshThickness == settings.meshThickness) || fields.shellPoints != settings.shellPoints)
        next->fields = std::make_shared<ShapeFieldCache>(
            ShapeFieldSettings{.meshThickness = settings.meshThickness, .shellPoints = settings.shellPoints});
    impl->install(std::move(next));
}

btCollisionDispatcher& CollisionRegistration::dispatcher() const
{
    return *impl->dispatcher;
}

const CollisionSettings& CollisionRegistration::settings() const
{
    return impl->context->settings;
}

CollisionStatistics CollisionRegistration::statistics() const
{
    CollisionCounters& c = *impl->context->counters;
    CollisionStatistics out;
    out.outputContacts = c.outputContacts.load(std::memory_order_relaxed);
    out.collidingPoints = c.collidingPoints.load(std::memory_order_relaxed);
    out.pairs = c.pairs.load(std::memory_order_relaxed);
    out.failures = c.failures.load(std::memory_order_relaxed);
    out.budgetLimitedPairs = c.budgetLimitedPairs.load(std::memory_order_relaxed);
    out.unsupportedPairs = c.unsupportedPairs.load(std::memory_order_relaxed);
    const std::lock_guard<std::mutex> lock(c.errorMutex);
    out.lastError = c.lastError;
    return out;
}

void CollisionRegistration::resetStatistics()
{
    CollisionCounters& c = *impl->context->counters;
    c.outputContacts.store(0, std::memory_order_relaxed);
    c.collidingPoints.store(0, std::memory_order_relaxed);
    c.pairs.store(0, std::memory_order_relaxed);
    c.failures.store(0, std::memory_order_relaxed);
    c.budgetLimitedPairs.store(0, std::memory_order_relaxed);
    c.unsupportedPairs.store(0, std::memory_order_relaxed);
    const std::lock_guard<std::mutex> lock(c.errorMutex);
    c.lastError.clear();
}

void CollisionRegistration::forgetShape(const btCollisionShape* shape)
{
    impl->context->fields->forget(shape);
}

void detail::InternalAccess::apply(CollisionRegistration& registration, const ComparisonVariants& variants)
{
    checkVariants(variants);
    const CollisionContext& current = *registration.impl->context;
    auto next = std::make_shared<CollisionContext>();
    next->settings = current.settings;
    next->mode = variants.contacts;
    next->order = variants.order;
    next->fields = current.fields;     // the other shapes' fields do not depend on the variants
    next->counters = current.counters; // a change of variants keeps counting into the same statistics
    registration.impl->install(std::move(next));
}

ComparisonVariants detail::InternalAccess::variants(const CollisionRegistration& registration)
{
    ComparisonVariants v;
    v.contacts = registration.impl->context->mode;
    v.order = registration.impl->context->order;
    return v;
}

void applyComparisonVariants(CollisionRegistration& registration, const ComparisonVariants& variants)
{
    detail::InternalAccess::apply(registration, variants);
}

ComparisonVariants comparisonVariants(const CollisionRegistration& registration)
{
    return detail::InternalAccess::variants(registration);
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
