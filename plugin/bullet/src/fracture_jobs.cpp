// FractureJobRunner (fracture_jobs.h): oneTBB workers for fracture events, one low-priority thread for
// preparations.
//
// Events run in a oneTBB arena of `workers` slots (at most TBB's pool of worker threads: hardware
// threads − 1 unless the program raises it with tbb::global_control before the system is made), none
// reserved for the simulation thread. Jobs are enqueued into it (task_arena::enqueue of a
// task_group::defer handle), so submission never blocks and never makes the simulation thread run someone
// else's job. An arena does not promise FIFO order, so a task does not carry its job: it runs the oldest
// job of the queue, and jobs start in submission order.
//
// Preparations (a fragment's modal basis: one factorisation and eigensolve that cannot be cut into
// pieces) run on a thread of their own at the lowest OS priority, in submission order (smallest fragment
// first, as FractureSystem's ready steps assume). A TBB task is never preempted, so on a worker shared with
// events a running basis kept every event that fell due behind it waiting, and the simulation thread ran
// the event itself; the OS does preempt a thread, so events keep their workers and a preparation takes
// whatever CPU the simulation and the events leave. The event workers in turn never preempt the
// simulation thread when a submission wakes them (batchWorker).
//
// Each job is claimed by a compare-and-swap of its status (Queued → Running), so a job that the
// simulation thread needs before any worker took it runs there instead, and a cancelled one is skipped by
// the thread that dequeues it. A queue holds its jobs by shared_ptr: FractureSystem may drop its reference
// as soon as the job is Done. A job also applies its result to a copy of the object's state (the
// collision-structure update), so that the simulation thread only swaps the two.
#include "fracture_jobs.h"

#include "fragment_mesh.h"
#include "object_state.h"
#include "shatter/error.h"
#include "thread_sanitizer.h"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace shatter::fracture
{

namespace
{

// Jobs whose run has not started yet, oldest first.
class JobQueue
{
public:
    void push(std::shared_ptr<FractureJob> job)
    {
        {
            const std::lock_guard lock(mutex);
            jobs.push_back(std::move(job));
        }
        wake.notify_one();
    }
    /// The oldest job (one is there: one task per pushed job).
    std::shared_ptr<FractureJob> pop()
    {
        const std::lock_guard lock(mutex);
        SHATTER_ASSERT(!jobs.empty());
        return takeFront();
    }
    /// Waits for the oldest job (into `job`, null if there is none yet) or retired states (into `dead`,
    /// for the caller to free outside the lock); false once close() was called and both are empty.
    bool waitPop(std::shared_ptr<FractureJob>& job, std::vector<std::unique_ptr<ObjectState>>& dead)
    {
        std::unique_lock lock(mutex);
        wake.wait(lock, [this] { return closed || !jobs.empty() || !retired.empty(); });
        dead.swap(retired);
        job = jobs.empty() ? nullptr : takeFront();
        return job || !dead.empty() || !closed;
    }
    /// Queues a state to free and wakes the waiting thread.
    void retire(std::unique_ptr<ObjectState> state)
    {
        {
            const std::lock_guard lock(mutex);
            retired.push_back(std::move(state));
        }
        wake.notify_one();
    }
    void close()
    {
        {
            const std::lock_guard lock(mutex);
            closed = true;
        }
        wake.notify_all();
    }

private:
    std::shared_ptr<FractureJob> takeFront() // caller holds the lock
    {
        std::shared_ptr<FractureJob> job = std::move(jobs.front());
        jobs.pop_front();
        return job;
    }
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<std::shared_ptr<FractureJob>> jobs;
    std::vector<std::unique_ptr<ObjectState>> retired;
    bool closed = false;
};

// The calling thread yields the CPU to every normal thread. Linux: SCHED_IDLE (nice 19 if that is
// refused), which a thread may always choose for itself: it runs only on a core no normal thread wants,
// waking it never preempts the simulation thread, and the scheduler counts its core as free when it
// places a woken event worker. Elsewhere the thread keeps its priority and shares the CPU evenly.
void lowerThreadPriority() noexcept
{
#if defined(__linux__)
    const sched_param param{};
    if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &param) != 0)
        (void)setpriority(PRIO_PROCESS, id_t(gettid()), 19);
#endif
}

// Event workers become SCHED_BATCH (Linux) at their first task of the events arena, which only takes
// away their wakeup preemption. A submission wakes a sleeping worker, and the scheduler may place it on
// the submitting core and preempt the simulation thread for a whole time slice to run it. The policy stays:
// the worker sleeps outside the arena, and the next wakeup is the one to tame. `owner` is the thread that
// made the runner: it may wait inside the arena and run a task itself, and keeps its policy.
void batchWorker(std::thread::id owner) noexcept
{
#if defined(__linux__)
    thread_local bool done = false;
    if (done || std::this_thread::get_id() == owner)
        return;
    done = true;
    int policy = 0;
    sched_param param{};
    if (pthread_getschedparam(pthread_self(), &policy, &param) == 0 && policy == SCHED_OTHER)
        (void)pthread_setschedparam(pthread_self(), SCHED_BATCH, &param);
#else
    (void)owner;
#endif
}

void runClaimed(FractureJob& job) noexcept;

// ThreadSanitizer's tokens for the events arena's handoffs (thread_sanitizer.h): at namespace scope,
// since a task must acquire before it reads anything from its closure.
char tsanEnqueued = 0, tsanFinished = 0;

} // namespace

struct FractureJobRunner::Pool
{
    // At most the pool's worker threads (max_allowed_parallelism − 1 when the arena is made): asking for
    // more gets no more threads, only TBB's warning on stderr.
    static int slots(int workers)
    {
        return std::max(1, std::min(workers, int(tbb::global_control::active_value(
                                                 tbb::global_control::max_allowed_parallelism)) -
                                                 1));
    }
    explicit Pool(int workers) : events(slots(workers)), preparer([this] { prepareLoop(); })
    {
        // Empty tasks, so that the workers become SCHED_BATCH before the first real submission wakes them.
        for (int i = 0; i < slots(workers); ++i)
            enqueue([this] { batchWorker(owner); });
    }
    // Runs `task` on a worker of the events arena.
    template <class Task>
    void enqueue(Task task)
    {
        tbb::task_handle handle = eventGroup.defer(
            [this, task]
            {
                tsanAcquire(&tsanEnqueued);
                task();
                tsanRelease(&tsanFinished);
            });
        tsanRelease(&tsanEnqueued); // after the task object is written
        events.enqueue(std::move(handle));
    }
    // Waits for every enqueued task.
    void waitForEvents()
    {
        events.execute([this] { eventGroup.wait(); });
        tsanAcquire(&tsanFinished);
    }
    // Runs the preparations in order until the queue is closed and empty, and frees the retired states
    // first whenever it takes the next one: a state waits at most for the preparation running, not for
    // the whole queue (in a pile of breaking objects, a dozen states of a few MiB each otherwise).
    void prepareLoop() noexcept
    {
        lowerThreadPriority();
        setBackgroundBuilder(true); // an event never waits for this thread's basis: it builds its own
        std::shared_ptr<FractureJob> job;
        std::vector<std::unique_ptr<ObjectState>> dead;
        while (preparations.waitPop(job, dead))
        {
            dead.clear();
            if (job)
                runClaimed(*job);
        }
    }
    const std::thread::id owner = std::this_thread::get_id();
    tbb::task_arena events;
    tbb::task_group eventGroup;
    JobQueue eventQueue, preparations;
    std::thread preparer; // declared last: it starts once the queues exist
};

namespace
{

// Marks a claimed job Done and wakes a thread waiting in finish() or cancel().
void publish(FractureJob& job) noexcept
{
    job.status.store(FractureJob::Done, std::memory_order_release);
    job.status.notify_all();
}

bool claim(FractureJob& job, int& seen) noexcept
{
    seen = FractureJob::Queued;
    return job.status.compare_exchange_strong(seen, FractureJob::Running, std::memory_order_acq_rel);
}

// Runs a dequeued job unless the simulation thread ran it already or it was cancelled.
void runClaimed(FractureJob& job) noexcept
{
    int seen = 0;
    if (!claim(job, seen))
        return;
    FractureJobRunner::run(job);
    publish(job);
}

void waitUntilDone(FractureJob& job) noexcept
{
    for (int s = job.status.load(std::memory_order_acquire); s == FractureJob::Running;
         s = job.status.load(std::memory_order_acquire))
        job.status.wait(s, std::memory_order_acquire);
}

} // namespace

FractureJobRunner::FractureJobRunner(int workers) : workerCount(workers)
{
    if (workers > 0)
        pool = std::make_unique<Pool>(workers);
}

FractureJobRunner::~FractureJobRunner()
{
    if (pool)
    {
        pool->waitForEvents();
        pool->preparations.close();
        pool->preparer.join();
    }
}

void FractureJobRunner::run(FractureJob& job) noexcept
{
    const auto start = std::chrono::steady_clock::now();
    try
    {
        if (job.prepareFrom)
        {
            job.pipeline->prepareFragments(*job.asset, *job.prepareFrom, job.prepare, *job.preparedMaterial,
                                           &job.stop);
        }
        else if (std::optional<FractureResult> result = job.pipeline->fracture(
                     *job.state, job.fragment, *job.material, job.forces, job.seed, job.stats.get()))
        {
            // The state is only read here (the simulation thread reads it too, and changes it only once
            // this job is done), so a copy made now is the state the result will be applied to.
            job.staged = std::make_unique<ObjectState>(*job.state);
            job.staged->apply(*result);
            job.result = std::make_shared<FractureResult>(std::move(*result));
        }
    }
    catch (...)
    {
        job.result.reset();
        job.staged.reset();
        job.error = std::current_exception();
    }
    job.jobMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void FractureJobRunner::submit(const std::shared_ptr<FractureJob>& job)
{
    if (!pool)
    {
        runClaimed(*job);
        return;
    }
    if (job->prepareFrom)
    {
        pool->preparations.push(job);
        return;
    }
    pool->eventQueue.push(job);
    pool->enqueue(
        [this]
        {
            batchWorker(pool->owner);
            runClaimed(*pool->eventQueue.pop());
        });
}

JobWait FractureJobRunner::finish(FractureJob& job)
{
    int seen = 0;
    if (claim(job, seen))
    {
        run(job);
        publish(job);
        return JobWait::RanHere;
    }
    if (seen == FractureJob::Done)
        return JobWait::Ready;
    waitUntilDone(job);
    return JobWait::Waited;
}

void FractureJobRunner::cancel(FractureJob& job)
{
    int seen = FractureJob::Queued;
    if (job.status.compare_exchange_strong(seen, FractureJob::Cancelled, std::memory_order_acq_rel))
        return;
    waitUntilDone(job);
}

void FractureJobRunner::abandon(FractureJob& job) noexcept
{
    int seen = FractureJob::Queued;
    job.status.compare_exchange_strong(seen, FractureJob::Cancelled, std::memory_order_acq_rel);
}

void FractureJobRunner::retire(std::unique_ptr<ObjectState> state) noexcept
{
    if (!pool || !state)
        return; // freed here
    try
    {
        pool->preparations.retire(std::move(state));
    }
    catch (const std::bad_alloc&)
    {
        // No room to queue it: freed here, on the simulation thread.
    }
}

} // namespace shatter::fracture
