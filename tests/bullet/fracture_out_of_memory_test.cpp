// A std::bad_alloc inside stepSimulation — the fracture pipeline running out of memory in the post-tick
// callback — is a failed event: caught there, counted and logged, the body left whole, nothing unwinding
// through Bullet, and the world steps on. A program of its own, because it replaces the global operator
// new with one that refuses large allocations while armed.
#include "bullet_world.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <new>

namespace
{
std::atomic<std::size_t> gRefuseAbove{0}; // bytes; 0: refuse nothing
} // namespace

// Both sides use malloc and free. GCC inlines the replaced delete next to allocations it takes for the
// built-in operator new and then warns of a mismatch that is not there.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new(std::size_t size)
{
    const std::size_t limit = gRefuseAbove.load(std::memory_order_relaxed);
    if (limit != 0 && size > limit)
        throw std::bad_alloc();
    if (void* p = std::malloc(size != 0 ? size : 1))
        return p;
    throw std::bad_alloc();
}

// Every other unaligned form goes through the one above, so that all of them pair with free.
void* operator new[](std::size_t size)
{
    return operator new(size);
}

void* operator new(std::size_t size, const std::nothrow_t&) noexcept
{
    try
    {
        return operator new(size);
    }
    catch (const std::bad_alloc&)
    {
        return nullptr;
    }
}

void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept
{
    return operator new(size, tag);
}

__attribute__((noinline)) void operator delete(void* p) noexcept
{
    std::free(p);
}

void operator delete[](void* p) noexcept
{
    operator delete(p);
}

void operator delete(void* p, std::size_t) noexcept
{
    operator delete(p);
}

void operator delete[](void* p, std::size_t) noexcept
{
    operator delete(p);
}

void operator delete(void* p, const std::nothrow_t&) noexcept
{
    operator delete(p);
}

void operator delete[](void* p, const std::nothrow_t&) noexcept
{
    operator delete(p);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace shatter::test
{
namespace
{

using namespace shatter::fracture;

TEST(FractureOutOfMemory, BadAllocInsideTheStepIsAFailedEventAndTheBodyStaysWhole)
{
    constexpr Real kDt = 1.0 / 120;
    BulletWorld world;
    world.addGroundPlane(0);
    std::vector<std::string> logged;
    FractureSystemSettings settings;
    settings.workers = 0; // the pipeline runs inside stepSimulation's post-tick callback
    settings.log = [&logged](const std::string& message)
    {
        logged.push_back(message);
    };
    FractureSystem system(world.world(), world.collision(), settings);
    ObjectSettings falling;
    falling.linearVelocity = Vec3(0, -std::sqrt(2 * 9.81 * 4.0), 0);
    const ObjectId plate =
        system.addObject(bulletAsset("plate.obj"), glass(), placement(Vec3(0, 0.01, 0)), falling);
    // Unarmed the same drop breaks the plate (FractureSystem tests); armed, every allocation over 64 KiB
    // fails.
    gRefuseAbove = 64 * 1024;
    int failed = 0;
    for (int step = 0; step < 30; ++step)
    {
        ASSERT_NO_THROW(world.step(kDt));
        failed += system.lastStepStats().failedEvents;
    }
    gRefuseAbove = 0;
    expectFailuresReportedNotApplied(system, plate, failed, logged, "out of memory");
    for (int step = 0; step < 30; ++step)
        ASSERT_NO_THROW(world.step(kDt));
    EXPECT_EQ(system.bodies(plate).size(), 1u) << "the plate, resting by now, broke later";
}

} // namespace
} // namespace shatter::test
