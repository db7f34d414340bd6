// TVCG §7's "plates" comparison: ten plates dropped into a pile on a static plane, and the same ten
// plates nested inside one another (BM_NestedPlates), the same plate mesh as (a) FracturableShape (TVCG
// Algorithm 1 with self-adapting contacts), (b) btGImpactMeshShape (Bullet's dynamic triangle mesh) and (c)
// btConvexHullShape (the convex hull of the plate's vertices). Every variant has the same body frame
// (centre of mass, principal axes), mass, inertia and start poses, so only the collision shape differs.
//
// Measured: narrow-phase time per step (the dispatcher's dispatchAllCollisionPairs, timed by a
// subclass in thread CPU time; broad phase and solver are excluded and identical), contacts per
// touching pair (contacts in all manifolds / pairs with at least one contact, averaged over the steps),
// and the final pile height. The fracturable benchmark also reports `speedup_vs_gimpact` and
// `speedup_vs_hull`: the baselines' time per step divided by its own, both measured in this process;
// and from the plugin's counters (CollisionStatistics in shatter/collision.h, TVCG Table 2) the output
// contacts and the colliding points (found within ε before selection) per pair evaluation with
// contacts.
// SHATTER_BENCH_SMOKE=1 (set by ctest) simulates a few steps only.
#include "bullet_world.h"
#include "test_env.h"

#include "fracturable_shape.h"
#include "shatter/collision.h"
#include "shatter/fracturable_body.h"

#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>
#include <benchmark/benchmark.h>
#include <btBulletDynamicsCommon.h>

#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>

namespace
{

using namespace shatter;

/// CPU time of the calling thread: the narrow phase runs on it, and unlike wall time this does not
/// count the time the thread waits for a core on a busy machine (CI runners, parallel builds).
double threadSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

enum Variant : int
{
    kFracturable,
    kGImpact,
    kHull,
};

/// btCollisionDispatcher that times the narrow phase.
class TimingDispatcher : public btCollisionDispatcher
{
public:
    using btCollisionDispatcher::btCollisionDispatcher;
    double seconds = 0;

    void dispatchAllCollisionPairs(btOverlappingPairCache* pairCache, const btDispatcherInfo& info,
                                   btDispatcher* dispatcher) override
    {
        const double start = threadSeconds();
        btCollisionDispatcher::dispatchAllCollisionPairs(pairCache, info, dispatcher);
        seconds += threadSeconds() - start;
    }
};

struct Measurement
{
    double secondsPerStep = 0;
    double contactsPerPair = 0;
    double maxContactsPerPair = 0;
    double pileTop = 0; // highest body origin at the end
    // Fracturable only, from the plugin's counters (TVCG Table 2): per pair evaluation with contacts.
    double outputPerPair = 0;
    double collidingPerPair = 0;
};

constexpr double kDt = 1.0 / 60.0;

/// How the ten plates start: dropped into a pile, or nested (each inside the one below, as plates are
/// stacked in a cupboard: every neighbouring pair is concave against concave, close everywhere, the
/// case where a triangle-mesh narrow phase meets the most triangle pairs).
enum Layout : int
{
    kPile,
    kNested,
};

Measurement simulate(Variant variant, Layout layout, int steps)
{
    std::shared_ptr<ObjectState> state = test::freshState("plate.obj");
    const TriMesh& surface = state->asset().surface;

    auto config = makeCollisionConfiguration();
    TimingDispatcher dispatcher(config.get());
    std::optional<CollisionRegistration> registration;
    if (variant == kFracturable)
        registration.emplace(dispatcher);
    if (variant == kGImpact)
        btGImpactCollisionAlgorithm::registerAlgorithm(&dispatcher);
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, config.get());
    world.setGravity(btVector3(0, btScalar(-9.81), 0));

    btStaticPlaneShape groundShape(btVector3(0, 1, 0), 0);
    btRigidBody ground(0, nullptr, &groundShape);
    world.addRigidBody(&ground);

    // One shape per variant, shared by the ten plates, in the fracturable body frame.
    FracturableBody made = makeFracturableBody(state, 0, Eigen::Isometry3d::Identity(), {2400, true});
    std::vector<btVector3> bodyVertices;
    for (const Vec3& v : surface.vertices)
    {
        const Vec3 b = made.materialToBody * v;
        bodyVertices.emplace_back(btScalar(b.x()), btScalar(b.y()), btScalar(b.z()));
    }
    std::vector<int> indices;
    for (const Triangle& t : surface.triangles)
        indices.insert(indices.end(), {int(t[0]), int(t[1]), int(t[2])});
    btTriangleIndexVertexArray meshArray(int(surface.triangles.size()), indices.data(), 3 * int(sizeof(int)),
                                         int(bodyVertices.size()), &bodyVertices[0][0],
                                         int(sizeof(btVector3)));
    std::unique_ptr<btCollisionShape> shape;
    if (variant == kFracturable)
        shape = std::move(made.shape);
    else if (variant == kGImpact)
    {
        auto gimpact = std::make_unique<btGImpactMeshShape>(&meshArray);
        gimpact->setMargin(btScalar(0.0005));
        gimpact->updateBound();
        shape = std::move(gimpact);
    }
    else
    {
        auto hull = std::make_unique<btConvexHullShape>(&bodyVertices[0][0], int(bodyVertices.size()),
                                                        int(sizeof(btVector3)));
        hull->setMargin(btScalar(0.0005));
        shape = std::move(hull);
    }

    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<std::unique_ptr<btRigidBody>> plates;
    for (int i = 0; i < 10; ++i)
    {
        const Eigen::Matrix3d tilt =
            Eigen::AngleAxisd(0.15 * u(rng), Vec3(u(rng), 0, u(rng)).normalized()).toRotationMatrix();
        // Nested: the plate is 6.6 mm thick at its centre and its rim rises 20 mm; 10 mm apart every
        // surface of a plate is at least 1.7 mm above the one below, and each settles into it.
        const Eigen::Isometry3d at =
            layout == kNested ? test::placement(Vec3(0, 0.001 + 0.010 * i, 0))
                              : test::placement(Vec3(0.03 * u(rng), 0.03 + 0.05 * i, 0.03 * u(rng)), tilt);
        btRigidBody::btRigidBodyConstructionInfo info(made.mass, nullptr, shape.get(), made.localInertia);
        info.m_startWorldTransform.setFromOpenGLMatrix(
            Eigen::Matrix4d((at * made.materialToBody.inverse()).matrix()).cast<btScalar>().eval().data());
        info.m_friction = btScalar(0.5);
        plates.push_back(std::make_unique<btRigidBody>(info));
        world.addRigidBody(plates.back().get());
    }

    Measurement m;
    double contactSum = 0;
    int contactSamples = 0;
    for (int s = 0; s < steps; ++s)
    {
        world.stepSimulation(btScalar(kDt), 1, btScalar(kDt));
        // Contacts per touching pair, over all manifolds of each pair.
        std::map<std::pair<const void*, const void*>, int> pairs;
        for (int i = 0; i < dispatcher.getNumManifolds(); ++i)
        {
            const btPersistentManifold* manifold = dispatcher.getManifoldByIndexInternal(i);
            if (manifold->getNumContacts() == 0)
                continue;
            const void* a = manifold->getBody0();
            const void* b = manifold->getBody1();
            pairs[{std::min(a, b), std::max(a, b)}] += manifold->getNumContacts();
        }
        for (const auto& [key, count] : pairs)
        {
            contactSum += count;
            ++contactSamples;
            m.maxContactsPerPair = std::max(m.maxContactsPerPair, double(count));
        }
    }
    m.secondsPerStep = dispatcher.seconds / steps;
    if (variant == kFracturable)
    {
        const CollisionStatistics st = registration->statistics();
        if (st.pairs > 0)
        {
            m.outputPerPair = double(st.outputContacts) / double(st.pairs);
            m.collidingPerPair = double(st.collidingPoints) / double(st.pairs);
        }
    }
    m.contactsPerPair = contactSamples ? contactSum / contactSamples : 0;
    for (const auto& p : plates)
        m.pileTop = std::max(m.pileTop, double(p->getWorldTransform().getOrigin().y()));
    for (const auto& p : plates)
        world.removeRigidBody(p.get());
    world.removeRigidBody(&ground);
    return m;
}

int stepCount()
{
    return test::benchSmokeMode() ? 20 : 300; // 5 s at 60 Hz: the pile forms and settles
}

/// Each variant and layout is simulated once per process and cached, so the ratios compare the same
/// runs.
const Measurement& measured(Variant v, Layout layout)
{
    static std::map<std::pair<int, int>, Measurement> cache;
    auto it = cache.find({v, layout});
    if (it == cache.end())
        it = cache.emplace(std::pair<int, int>(v, layout), simulate(v, layout, stepCount())).first;
    return it->second;
}

void plates(benchmark::State& state, Layout layout)
{
    const auto variant = Variant(state.range(0));
    Measurement m;
    for (auto _ : state)
    {
        m = measured(variant, layout);
        state.SetIterationTime(m.secondsPerStep);
    }
    state.counters["cd_ms_per_step"] = m.secondsPerStep * 1e3;
    state.counters["contacts_per_pair"] = m.contactsPerPair;
    state.counters["max_contacts_per_pair"] = m.maxContactsPerPair;
    state.counters["pile_top_m"] = m.pileTop;
    if (variant == kFracturable)
    {
        state.counters["speedup_vs_gimpact"] = measured(kGImpact, layout).secondsPerStep / m.secondsPerStep;
        state.counters["speedup_vs_hull"] = measured(kHull, layout).secondsPerStep / m.secondsPerStep;
        state.counters["output_points_per_pair"] = m.outputPerPair;
        state.counters["colliding_points_per_pair"] = m.collidingPerPair;
    }
}

void BM_PlatePile(benchmark::State& state)
{
    plates(state, kPile);
}
void BM_NestedPlates(benchmark::State& state)
{
    plates(state, kNested);
}

/// The three shapes; one iteration each, timed manually from the cached simulation.
void everyShape(benchmark::internal::Benchmark* b)
{
    b->ArgName("shape")->Arg(kFracturable)->Arg(kGImpact)->Arg(kHull);
    b->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_PlatePile)->Apply(everyShape);
BENCHMARK(BM_NestedPlates)->Apply(everyShape);

} // namespace

BENCHMARK_MAIN();
