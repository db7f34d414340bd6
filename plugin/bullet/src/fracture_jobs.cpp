// FractureJobRunner (fracture_jobs.h): oneTBB workers for the fracture pipeline.
//
// Two arenas, events (high priority) and preparations (low), have `workers` slots each (at most TBB's
// pool of worker threads: hardware threads − 1 unless the program raises it with tbb::global_control
// before the system is made), none reserved for the simulation thread, and jobs are enqueued into them
// (task_arena::enqueue of a task_group::defer handle), so submission never blocks and never makes the
// simulation thread run someone else's job. An arena does not promise FIFO order, so a task does not
// carry its job: it runs the oldest job of its arena's queue, and jobs start in submission order (an
// event's preparations smallest fragment first, as FractureSystem's ready steps assume). Each job is
// claimed by a compare-and-swap of its status (Queued → Running), so a job that the simulation thread needs
// before any worker took it runs there instead, and a cancelled one is skipped by the worker that dequeues
// it. The task holds the job by shared_ptr: FractureSystem may drop its reference as soon as the job is Done.
// A job also applies its result to a copy of the object's state (the collision-structure update), so
// that the simulation thread only swaps the two.
#include "fracture_jobs.h"

#include "fragment_mesh.h"
#include "object_state.h"
#include "shatter/error.h"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <mutex>
#include <string>

namespace shatter::fracture
{

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
    // Events have a deadline (their step), preparations only a window of steps: a worker that is free
    // takes a queued event first (TBB serves the higher-priority arena), and a preparation is one
    // fragment, so an event waits for at most one fragment's basis.
    explicit Pool(int workers)
        : events(slots(workers), 0, tbb::task_arena::priority::high),
          background(slots(workers), 0, tbb::task_arena::priority::low)
    {
    }
    tbb::task_arena events, background;
    tbb::task_group eventGroup, backgroundGroup;
    // Per arena, the jobs whose task has not run yet, oldest first: each task takes the front one.
    struct Queue
    {
        std::mutex mutex;
        std::deque<std::shared_ptr<FractureJob>> jobs;
        void push(std::shared_ptr<FractureJob> job)
        {
            const std::lock_guard lock(mutex);
            jobs.push_back(std::move(job));
        }
        std::shared_ptr<FractureJob> pop()
        {
            const std::lock_guard lock(mutex);
            SHATTER_ASSERT(!jobs.empty()); // one task per pushed job
            std::shared_ptr<FractureJob> job = std::move(jobs.front());
            jobs.pop_front();
            return job;
        }
    };
    Queue eventQueue, backgroundQueue;
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
        pool->events.execute([this] { pool->eventGroup.wait(); });
        pool->background.execute([this] { pool->backgroundGroup.wait(); });
    }
}

void FractureJobRunner::run(FractureJob& job) noexcept
{
    const auto start = std::chrono::steady_clock::now();
    try
    {
        if (job.prepareFrom)
        {
            job.retired.reset();
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
        int seen = 0;
        if (claim(*job, seen))
        {
            run(*job);
            publish(*job);
        }
        return;
    }
    const bool background = job->prepareFrom != nullptr;
    Pool::Queue& queue = background ? pool->backgroundQueue : pool->eventQueue;
    queue.push(job);
    auto task = [&queue]
    {
        const std::shared_ptr<FractureJob> next = queue.pop();
        int seen = 0;
        if (!claim(*next, seen))
            return; // run by the simulation thread already, or cancelled
        run(*next);
        publish(*next);
    };
    if (background)
        pool->background.enqueue(pool->backgroundGroup.defer(std::move(task)));
    else
        pool->events.enqueue(pool->eventGroup.defer(std::move(task)));
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

} // namespace shatter::fracture
