// Fracture jobs: one fracture event's pipeline work (FracturePipeline::fracture: deformation, criterion
// and degree, CVD, tessellation; CVD §3-§5) run off the simulation thread on oneTBB workers. A job only
// reads its object's ObjectState (which nobody changes while the job is pending: FractureSystem applies
// results on the simulation thread, one pending job per object) and writes its own outputs; it never
// touches Bullet.
//
// A job is claimed exactly once, by a worker or by the simulation thread (finish() runs a job no worker
// has started yet itself instead of waiting behind other jobs), so who ran it never changes its result:
// the pipeline is deterministic for a given seed.
#pragma once

#include "fracture_pipeline.h"
#include "shatter/fracture_system.h"

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

namespace shatter::fracture
{

/// One submitted fracture event. The inputs are set before submission and not changed after; the
/// outputs belong to whoever claimed the job until it is Done.
struct FractureJob
{
    enum Status : int
    {
        Queued,
        Running,
        Done,
        Cancelled
    };

    // Inputs.
    ObjectId object = 0;
    FragmentId fragment = kNoFragment;
    std::uint64_t seed = 0;
    std::uint64_t submitStep = 0; ///< the impact step (FractureSystem's internal step count)
    std::uint64_t dueStep = 0;    ///< submitStep + latencySteps: the step whose boundary applies it
    Real impulse = 0;             ///< Σ J of the impact, N·s (the gate's held impulse if it holds)
    std::shared_ptr<const ObjectState> state;
    const Material* material = nullptr; ///< the object's, alive while the job is pending
    FracturePipeline* pipeline = nullptr;
    std::vector<ImpactForce> forces; ///< material frame
    /// Set: a preparation, not an event — FracturePipeline::prepareFragments of the `prepare` fragments
    /// of this applied result (their modal bases) so that their first hit finds them. It reads neither
    /// `state` nor `material` (the object may change or go meanwhile), only these, the asset and
    /// `preparedMaterial` (a copy shared by the event's preparations); no outputs are read.
    std::shared_ptr<const FractureResult> prepareFrom;
    std::vector<FragmentId> prepare;
    std::shared_ptr<const Asset> asset;
    std::shared_ptr<const Material> preparedMaterial;
    std::atomic<bool> stop{false}; ///< a preparation skips its remaining fragments once this is set

    // Outputs.
    std::shared_ptr<FractureResult> result; ///< the event's fracture, if it broke
    /// With a result: a copy of `state` with the result applied (ObjectState::apply, TVCG §4.2, §6), for
    /// the simulation thread to swap in instead of updating the state itself.
    std::unique_ptr<ObjectState> staged;
    std::exception_ptr error; ///< what the pipeline threw (a failed event)
    std::shared_ptr<FractureEventStats> stats = std::make_shared<FractureEventStats>();
    double jobMs = 0; ///< the pipeline's wall time on the thread that ran it

    std::atomic<int> status{Queued};
};

/// How finish() found a job.
enum class JobWait
{
    Ready,   ///< already done
    RanHere, ///< no worker had started it: run on the calling thread
    Waited   ///< a worker was running it: waited
};

/// The workers: a oneTBB arena of `workers` threads for events, one lowest-priority thread for
/// preparations (fracture_jobs.cpp says why), and a task_group tracking every submitted event.
/// workers = 0 runs each job inline at submission.
class FractureJobRunner
{
public:
    explicit FractureJobRunner(int workers);
    ~FractureJobRunner(); // waits until every job has left (cancelled jobs return at once)
    FractureJobRunner(const FractureJobRunner&) = delete;
    FractureJobRunner& operator=(const FractureJobRunner&) = delete;

    int workers() const { return workerCount; }

    /// Queues `job` for a worker (workers = 0: runs it now). Never throws but std::bad_alloc.
    void submit(const std::shared_ptr<FractureJob>& job);
    /// Returns once `job` is Done: at once if it is, else runs it here if it is still queued, else waits
    /// for the worker running it.
    JobWait finish(FractureJob& job);
    /// A queued job is never run; a running one is waited for. Afterwards no thread touches its inputs.
    void cancel(FractureJob& job);
    /// A queued job is never run; a running one goes on without being waited for (only for jobs whose
    /// inputs they own, such as preparations).
    static void abandon(FractureJob& job) noexcept;
    /// Frees an object's earlier state, which the simulation thread swapped out, off that thread: on the
    /// preparation thread before its next preparation (workers = 0: here). Never throws.
    void retire(std::unique_ptr<ObjectState> state) noexcept;

    /// Runs the pipeline of a claimed job and stores its outputs; never throws.
    static void run(FractureJob& job) noexcept;

private:
    int workerCount = 0;
    struct Pool; // the task_arena and task_group (TBB stays out of this header)
    std::unique_ptr<Pool> pool;
};

} // namespace shatter::fracture
