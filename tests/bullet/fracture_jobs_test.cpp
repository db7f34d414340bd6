// FractureSystem's fracture jobs (FractureSystemSettings::workers, latencySteps) in a real Bullet world:
//  - the same drop gives bitwise the same bodies with 0, 1, 2 and 4 workers (results never depend on
//    timing);
//  - fragments replace the body exactly latencySteps internal steps after the impact step; meanwhile the
//    body simulates whole and takes no new job; each fragment starts where the parent's material is at
//    replacement (its current pose, not the pose of the impact) with the parent's v + ω × r;
//  - a job whose pipeline throws is a failed event at its due step, not an exception;
//  - a new fragment's impacts wait fragmentReadySteps steps, and for its predicted basis (fragmentBasisMs);
//  - an event job runs while a preparation is running, even with one worker;
//  - removeObject, clear and the destructor with a pending job, and breakWithImpulses completing one;
//  - bad settings throw.
#include "bullet_world.h"

#include "fracture_jobs.h"
#include "fracture_system_internal.h"
#include "shatter/error.h"

#include <gtest/gtest.h>

#if defined(__linux__)
#include <sched.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <thread>

namespace shatter::test
{
namespace
{

using namespace shatter::fracture;

constexpr Real kDt = 1.0 / 120;

// A plate falling from `height` and sliding sideways at 3 m/s, 5 mm above the floor: it hits the floor
// in the first steps and keeps moving during the latency.
ObjectId addFallingPlate(FractureSystem& system, Real height)
{
    ObjectSettings options;
    options.linearVelocity = Vec3(3, -std::sqrt(2 * 9.81 * height), 0);
    const Eigen::Matrix3d tilt = Eigen::AngleAxisd(0.15, Vec3(0.6, 0, 0.8)).toRotationMatrix();
    const auto asset = bulletAsset("plate.obj");
    Real lowest = 1e9;
    for (const Vec3& v : asset->surface.vertices)
        lowest = std::min(lowest, (tilt * v).y());
    return system.addObject(asset, glass(), placement(Vec3(0, 0.005 - lowest, 0), tilt), options);
}

struct DropResult
{
    std::uint64_t hash = 0;
    int events = 0;
    int submitted = 0;
};

DropResult drop(int workers, int latency)
{
    BulletWorld world;
    world.addGroundPlane(0);
    FractureSystemSettings settings;
    settings.workers = workers;
    settings.latencySteps = latency;
    FractureSystem system(world.world(), world.collision(), settings);
    const ObjectId plate = addFallingPlate(system, 2.0);
    DropResult r;
    for (int step = 0; step < 50; ++step)
    {
        world.step(kDt);
        r.events += int(system.lastStepEvents().size());
        r.submitted += system.lastStepStats().jobsSubmitted;
        EXPECT_EQ(system.lastStepStats().failedEvents, 0) << system.lastStepStats().lastError;
    }
    r.hash = hashBodies(system.bodies(plate));
    return r;
}

TEST(FractureJobs, SameSimulationWithAnyNumberOfWorkers)
{
    for (int latency : {0, 2})
    {
        const DropResult inline0 = drop(0, latency);
        EXPECT_GT(inline0.events, 0) << "latency " << latency;
        EXPECT_GT(inline0.submitted, inline0.events) << "some evaluations must hold, too";
        for (int workers : {1, 2, 4})
        {
            const DropResult r = drop(workers, latency);
            EXPECT_EQ(r.hash, inline0.hash) << workers << " workers, latency " << latency;
            EXPECT_EQ(r.events, inline0.events) << workers << " workers, latency " << latency;
            EXPECT_EQ(r.submitted, inline0.submitted) << workers << " workers, latency " << latency;
        }
    }
}

// The kinematics of every body of the system just before onInternalTick: what the fragments must take
// over at replacement.
struct Kinematics
{
    Eigen::Isometry3d transform = Eigen::Isometry3d::Identity();
    Vec3 centre = Vec3::Zero(), linear = Vec3::Zero(), angular = Vec3::Zero();
};

struct Recorder
{
    FractureSystem* system = nullptr;
    ObjectId object = 0;
    std::map<FragmentId, Kinematics> beforeTick;

    static void tick(btDynamicsWorld* world, btScalar timeStep)
    {
        Recorder& r = *static_cast<Recorder*>(world->getWorldUserInfo());
        r.beforeTick.clear();
        for (btRigidBody* b : r.system->bodies(r.object))
        {
            ObjectId o = 0;
            FragmentId f = kNoFragment;
            r.system->lookup(b, o, f);
            Kinematics k;
            k.transform.matrix() = Eigen::Matrix4d::Identity();
            btScalar m[16];
            b->getWorldTransform().getOpenGLMatrix(m);
            for (int i = 0; i < 16; ++i)
                k.transform.matrix()(i % 4, i / 4) = Real(m[i]);
            k.centre = toVec(b->getCenterOfMassPosition());
            k.linear = toVec(b->getLinearVelocity());
            k.angular = toVec(b->getAngularVelocity());
            r.beforeTick[f] = k;
        }
        r.system->onInternalTick(timeStep);
    }
};

TEST(FractureJobs, FragmentsAppearLatencyStepsLaterWhereTheParentIsNow)
{
    const int latency = 3;
    BulletWorld world;
    world.addGroundPlane(0);
    FractureSystemSettings settings;
    settings.workers = 1;
    settings.latencySteps = latency;
    settings.installCallback = false;
    FractureSystem system(world.world(), world.collision(), settings);
    Recorder recorder{&system, addFallingPlate(system, 2.0), {}};
    world.world().setInternalTickCallback(&Recorder::tick, &recorder, false);

    std::vector<int> submitted, pending;                   // per step
    std::vector<std::map<FragmentId, Kinematics>> history; // per step: bodies just before the tick
    int events = 0;
    double checkedTravel = 0;
    for (int step = 0; step < 60; ++step)
    {
        // O of every live fragment before the step (a parent's body is gone after it breaks).
        std::map<FragmentId, Eigen::Isometry3d> offsets;
        for (FragmentId f : system.state(recorder.object).liveFragments())
            offsets[f] = system.materialToBody(recorder.object, f);
        world.step(kDt);
        const FractureStepStats& stats = system.lastStepStats();
        submitted.push_back(stats.jobsSubmitted);
        pending.push_back(stats.pendingJobs);
        history.push_back(recorder.beforeTick);
        EXPECT_EQ(stats.failedEvents, 0) << stats.lastError;
        EXPECT_LE(stats.pendingJobs, 1) << "one object has at most one pending job";
        // A job completes exactly `latency` steps after its impact step, and none is submitted for the
        // object in between (its impacts are not evaluated while the job is pending).
        EXPECT_EQ(stats.jobsCompleted, step >= latency ? submitted[std::size_t(step - latency)] : 0)
            << "step " << step;
        for (int s = 1; s < latency && step - s >= 0; ++s)
        {
            if (submitted[std::size_t(step - s)] > 0)
            {
                EXPECT_EQ(stats.jobsSubmitted, 0) << "step " << step << ": a job while one was pending";
            }
        }

        for (const FractureEvent& e : system.lastStepEvents())
        {
            ++events;
            EXPECT_EQ(e.latencySteps, latency);
            ASSERT_GE(step, latency);
            ASSERT_TRUE(recorder.beforeTick.contains(e.parent));
            const Kinematics& now = recorder.beforeTick.at(e.parent);
            const auto then = history[std::size_t(step - latency)].find(e.parent);
            ASSERT_NE(then, history[std::size_t(step - latency)].end());
            const Vec3 impactCentre = then->second.centre;
            const Real travel = (now.centre - impactCentre).norm();
            const Eigen::Isometry3d parentO = offsets.at(e.parent);
            for (FragmentId f : e.fragments)
            {
                const btRigidBody* body = nullptr;
                for (btRigidBody* b : system.bodies(recorder.object))
                {
                    ObjectId o = 0;
                    FragmentId g = kNoFragment;
                    if (system.lookup(b, o, g) && g == f)
                        body = b;
                }
                ASSERT_NE(body, nullptr);
                const Vec3 centre = toVec(body->getCenterOfMassPosition());
                // The fragment's centre of mass in the material frame, placed with the parent's pose now.
                const Vec3 material = system.materialToBody(recorder.object, f).inverse().translation();
                const Vec3 expected = now.transform * (parentO * material);
                EXPECT_LT((centre - expected).norm(), 1e-5) << "fragment " << f;
                // No jump beyond the parent's travel since the impact plus the fragment's offset.
                EXPECT_LE((centre - impactCentre).norm(), travel + (centre - now.centre).norm() + 1e-9);
                // v + ω × r with the parent's velocities now.
                const Vec3 v = now.linear + now.angular.cross(centre - now.centre);
                EXPECT_LT((toVec(body->getLinearVelocity()) - v).norm(), 1e-6) << "fragment " << f;
                EXPECT_LT((toVec(body->getAngularVelocity()) - now.angular).norm(), 1e-6);
                // The pose of the impact step would put it elsewhere: the test can tell the two apart.
                const Vec3 stale = then->second.transform * (parentO * material);
                checkedTravel = std::max(checkedTravel, (stale - expected).norm());
            }
        }
    }
    EXPECT_GT(events, 0);
    EXPECT_GT(checkedTravel, 1e-3) << "the parent did not move during the latency: the test proves little";
}

// Per step after the first event: jobs submitted and impacts held back as unready.
struct ReadyRun
{
    int firstEventStep = -1;
    std::vector<int> submitted, unready;
};

ReadyRun dropWithReadySteps(int readySteps, Real basisMs = 0)
{
    BulletWorld world;
    world.addGroundPlane(0);
    FractureSystemSettings settings;
    settings.workers = 1;
    settings.latencySteps = 1;
    settings.fragmentReadySteps = readySteps;
    settings.fragmentBasisMs = basisMs;
    FractureSystem system(world.world(), world.collision(), settings);
    addFallingPlate(system, 2.0);
    ReadyRun r;
    for (int step = 0; step < 60; ++step)
    {
        world.step(kDt);
        const FractureStepStats& stats = system.lastStepStats();
        if (r.firstEventStep < 0 && stats.events > 0)
            r.firstEventStep = step;
        else if (r.firstEventStep >= 0)
        {
            r.submitted.push_back(stats.jobsSubmitted);
            r.unready.push_back(stats.unreadyImpacts);
        }
    }
    return r;
}

// A new fragment's impacts are not evaluated during its first fragmentReadySteps internal steps (its
// basis is prepared meanwhile); with 0 they are, from its first step on, so the test can tell (the
// size-based readiness is off in both: fragmentBasisMs = 0).
TEST(FractureJobs, NewFragmentsAreNotEvaluatedBeforeTheyAreReady)
{
    const int ready = 12;
    const ReadyRun waiting = dropWithReadySteps(ready);
    const ReadyRun eager = dropWithReadySteps(0);
    ASSERT_GE(waiting.firstEventStep, 0) << "the plate must break";
    ASSERT_EQ(waiting.firstEventStep, eager.firstEventStep) << "the first event does not depend on readiness";
    int held = 0, eagerJobs = 0;
    // The object's only bodies are the first event's fragments (or theirs): none is ready before `ready`
    // steps have passed since they appeared (the step after the event's is the first counted).
    for (int k = 0; k + 1 < ready && k < int(waiting.submitted.size()); ++k)
    {
        EXPECT_EQ(waiting.submitted[std::size_t(k)], 0) << "a job for an unready fragment, step " << k;
        held += waiting.unready[std::size_t(k)];
        eagerJobs += eager.submitted[std::size_t(k)];
        EXPECT_EQ(eager.unready[std::size_t(k)], 0);
    }
    EXPECT_GT(held, 0) << "the fragments lie on the floor: some impacts must have been held back";
    EXPECT_GT(eagerJobs, 0) << "with fragmentReadySteps = 0 the same impacts are evaluated";
    int later = 0;
    for (std::size_t k = std::size_t(ready); k < waiting.submitted.size(); ++k)
        later += waiting.submitted[k];
    EXPECT_GT(later, 0) << "ready fragments are evaluated again";
}

// With a predicted basis cost far beyond the run, no fragment becomes ready however small
// fragmentReadySteps is: their impacts are held back, never evaluated.
TEST(FractureJobs, FragmentsAreNotReadyBeforeTheirPredictedBasis)
{
    const ReadyRun slow = dropWithReadySteps(0, 1e9);
    const ReadyRun eager = dropWithReadySteps(0, 0);
    ASSERT_GE(slow.firstEventStep, 0) << "the plate must break";
    ASSERT_EQ(slow.firstEventStep, eager.firstEventStep) << "the first event does not depend on readiness";
    int held = 0, slowJobs = 0, eagerJobs = 0;
    for (std::size_t k = 0; k < slow.submitted.size(); ++k)
    {
        held += slow.unready[k];
        slowJobs += slow.submitted[k];
        eagerJobs += eager.submitted[k];
    }
    EXPECT_GT(held, 0) << "the fragments lie on the floor: some impacts must have been held back";
    EXPECT_EQ(slowJobs, 0) << "a fragment was evaluated before its predicted basis";
    EXPECT_GT(eagerJobs, 0) << "without the prediction the same impacts are evaluated";
}

TEST(FractureJobs, AFailingJobIsReportedAtItsStepNotThrown)
{
    BulletWorld world;
    world.addGroundPlane(0);
    std::vector<std::string> logged;
    FractureSystemSettings settings;
    settings.workers = 1;
    settings.latencySteps = 2;
    settings.log = [&](const std::string& message)
    {
        logged.push_back(message);
    };
    FractureSystem system(world.world(), world.collision(), settings);
    const ObjectId plate = addFallingPlate(system, 4.0);
    // Corrupt the material behind addObject's check (only in-tree code can): every job now throws
    // shatter::Error on the worker.
    const_cast<Material&>(system.material(plate)).youngsModulus = -1;
    std::vector<int> submitted;
    int failed = 0;
    for (int step = 0; step < 30; ++step)
    {
        ASSERT_NO_THROW(world.step(kDt));
        const FractureStepStats& stats = system.lastStepStats();
        submitted.push_back(stats.jobsSubmitted);
        failed += stats.failedEvents;
        EXPECT_EQ(stats.failedEvents, step >= 2 ? submitted[std::size_t(step - 2)] : 0) << "step " << step;
        if (stats.failedEvents > 0)
        {
            EXPECT_FALSE(stats.lastError.empty());
        }
    }
    expectFailuresReportedNotApplied(system, plate, failed, logged, "oung"); // Young's modulus
}

// Steps until the system has a pending job (at most 20 steps); false if none came.
bool stepUntilPending(BulletWorld& world, FractureSystem& system)
{
    for (int step = 0; step < 20; ++step)
    {
        world.step(kDt);
        if (system.lastStepStats().pendingJobs > 0)
            return true;
    }
    return false;
}

TEST(FractureJobs, RemovingOrDestroyingWithAPendingJobIsSafe)
{
    for (int workers : {0, 1, 2})
    {
        BulletWorld world;
        world.addGroundPlane(0);
        FractureSystemSettings settings;
        settings.workers = workers;
        settings.latencySteps = 50; // still pending when removed
        {
            FractureSystem system(world.world(), world.collision(), settings);
            const ObjectId plate = addFallingPlate(system, 4.0);
            const ObjectId other = addFallingPlate(system, 4.0);
            ASSERT_TRUE(stepUntilPending(world, system)) << workers << " workers";
            system.removeObject(plate); // its job is cancelled or waited for
            EXPECT_EQ(system.objects().size(), 1u);
            EXPECT_THROW(system.state(plate), Error);
            for (int step = 0; step < 5; ++step)
            {
                world.step(kDt);
                EXPECT_EQ(system.lastStepStats().failedEvents, 0);
            }
            EXPECT_LE(system.lastStepStats().pendingJobs, 1) << "only the other plate's job can be pending";
            system.clear();
            EXPECT_TRUE(system.objects().empty());
            world.step(kDt);
            EXPECT_EQ(system.lastStepStats().pendingJobs, 0);
            EXPECT_EQ(system.lastStepStats().jobsCompleted, 0);
            (void)other;
        }
        {
            FractureSystem system(world.world(), world.collision(), settings);
            addFallingPlate(system, 4.0);
            ASSERT_TRUE(stepUntilPending(world, system));
        } // destroyed with its job pending (queued or running)
        EXPECT_EQ(world.world().getNumCollisionObjects(), 1) << "only the ground is left";
    }
}

TEST(FractureJobs, BreakWithImpulsesCompletesThePendingJobFirst)
{
    BulletWorld world;
    world.addGroundPlane(0);
    FractureSystemSettings settings;
    settings.workers = 1;
    settings.latencySteps = 30;
    FractureSystem system(world.world(), world.collision(), settings);
    const ObjectId plate = addFallingPlate(system, 4.0);
    // Step until a pending job that breaks the plate (a 4 m drop does; a light first touch may hold).
    bool broke = false;
    for (int attempt = 0; attempt < 40 && !broke; ++attempt)
    {
        world.step(kDt);
        if (system.lastStepStats().pendingJobs == 0)
            continue;
        const Vec3 point = toVec(system.bodies(plate).front()->getCenterOfMassPosition());
        const Vec3 impulse(0, -1e-6, 0); // far too weak to break anything itself
        const std::size_t before = system.totalEvents();
        const std::optional<FractureEvent> event =
            system.breakWithImpulses(plate, 0, {&point, 1}, {&impulse, 1}, kDt);
        if (system.totalEvents() == before)
        {
            // The job held and the small blow did not break it either.
            EXPECT_FALSE(event.has_value());
            continue;
        }
        broke = true;
        // The job broke fragment 0: the blow finds no body and reports nothing of its own.
        EXPECT_FALSE(event.has_value());
        ASSERT_EQ(system.lastStepEvents().size(), 1u);
        EXPECT_EQ(system.lastStepEvents().front().parent, 0u);
        EXPECT_LT(system.lastStepEvents().front().latencySteps, 30);
        EXPECT_GT(system.bodies(plate).size(), 1u);
    }
    EXPECT_TRUE(broke);
}

// Polls until `job` has left `status` (or a minute has passed); returns its status then.
int waitWhile(const FractureJob& job, int status)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (job.status.load() == status && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return job.status.load();
}

#if defined(__linux__)
// Scheduling policies of this process's threads (field 41 of /proc/self/task/<tid>/stat).
std::vector<int> threadPolicies()
{
    std::vector<int> policies;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task"))
    {
        std::ifstream in(task.path() / "stat");
        std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::istringstream fields(stat.substr(stat.rfind(')') + 2)); // the name may hold spaces
        std::string field;
        for (int i = 3; i <= 41 && fields >> field; ++i)
            if (i == 41)
                policies.push_back(std::stoi(field));
    }
    return policies;
}
#endif

// A preparation (a fragment's modal basis: one solve that cannot be interrupted) does not hold up an
// event submitted while it runs, even with a single worker: the event is done while the basis is still
// being built, and neither thread preempts the simulation thread when woken. The preparation builds the
// whole plate's basis (a result labelling every node with one new fragment); the event evaluates an
// impact on a brick, whose basis is a few hundred times cheaper.
TEST(FractureJobs, AnEventDoesNotWaitForARunningPreparation)
{
    const std::shared_ptr<ObjectState> plate = freshState("plate.obj");
    const std::shared_ptr<ObjectState> brick = freshState("brick.obj");
    FracturePipeline pipeline;
    const Material material = glass();
    FractureJobRunner runner(1);

    auto whole = std::make_shared<FractureResult>();
    whole->parent = 0;
    whole->fragments = {1};
    for (Index n = 0; n < plate->asset().tetMesh.nodeCount(); ++n)
    {
        whole->nodes.push_back(n);
        whole->nodeFragments.push_back(1);
    }
    auto prepare = std::make_shared<FractureJob>();
    prepare->pipeline = &pipeline;
    prepare->prepareFrom = whole;
    prepare->prepare = {1};
    prepare->asset = plate->assetPointer();
    prepare->preparedMaterial = std::make_shared<const Material>(material);
    runner.submit(prepare);
    ASSERT_EQ(waitWhile(*prepare, FractureJob::Queued), FractureJob::Running);

    auto event = std::make_shared<FractureJob>();
    event->pipeline = &pipeline;
    event->state = brick;
    event->fragment = 0;
    event->material = &material;
    const TriMesh& surface = brick->fragmentMesh(0)->surface;
    event->forces = {
        {surface.vertices[0], 1000 * (surface.bounds().center() - surface.vertices[0]).normalized()}};
    event->seed = 1;
    runner.submit(event);
    EXPECT_EQ(waitWhile(*event, FractureJob::Queued), FractureJob::Running);
    EXPECT_EQ(waitWhile(*event, FractureJob::Running), FractureJob::Done);
    EXPECT_EQ(prepare->status.load(), FractureJob::Running) << "the event waited for the preparation";
    EXPECT_FALSE(event->error);

#if defined(__linux__)
    // Neither kind of thread preempts the simulation thread when woken: the event worker is SCHED_BATCH,
    // the preparation thread SCHED_IDLE (fracture_jobs.cpp).
    const std::vector<int> policies = threadPolicies();
    EXPECT_EQ(std::count(policies.begin(), policies.end(), SCHED_IDLE), 1);
    EXPECT_GE(std::count(policies.begin(), policies.end(), SCHED_BATCH), 1);
#endif

    EXPECT_EQ(runner.finish(*prepare), JobWait::Waited);
    EXPECT_FALSE(prepare->error);
}

TEST(FractureJobs, BadSettingsThrow)
{
    BulletWorld world;
    FractureSystemSettings settings;
    settings.workers = -1;
    EXPECT_THROW(FractureSystem(world.world(), world.collision(), settings), Error);
    settings.workers = 0;
    settings.latencySteps = -1;
    EXPECT_THROW(FractureSystem(world.world(), world.collision(), settings), Error);
    settings.latencySteps = 0;
    settings.fragmentReadySteps = -1;
    EXPECT_THROW(FractureSystem(world.world(), world.collision(), settings), Error);
    settings.fragmentReadySteps = 0;
    for (Real bad : {-1.0, std::numeric_limits<Real>::quiet_NaN(), std::numeric_limits<Real>::infinity()})
    {
        settings.fragmentBasisMs = bad;
        EXPECT_THROW(FractureSystem(world.world(), world.collision(), settings), Error) << bad;
    }
}

} // namespace
} // namespace shatter::test
