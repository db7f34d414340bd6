#include "timed_world.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

namespace shatter::scenes
{

void TimedWorld::performDiscreteCollisionDetection()
{
    const auto start = std::chrono::steady_clock::now();
    btDiscreteDynamicsWorld::performDiscreteCollisionDetection();
    counts = {};
    counts.collisionMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

    // Shatter's algorithm gives one pair several manifolds (four points each, as many as its contacts
    // need; FracturableCollisionAlgorithm): count pairs, not manifolds.
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> pairs;
    btDispatcher& d = *getDispatcher();
    for (int i = 0; i < d.getNumManifolds(); ++i)
    {
        const btPersistentManifold& m = *d.getManifoldByIndexInternal(i);
        const int n = m.getNumContacts();
        if (n == 0)
            continue;
        counts.contacts += n;
        const auto a = reinterpret_cast<std::uintptr_t>(m.getBody0());
        const auto b = reinterpret_cast<std::uintptr_t>(m.getBody1());
        pairs.emplace_back(std::min(a, b), std::max(a, b));
        for (int k = 0; k < n; ++k)
            counts.maxPenetration =
                std::max(counts.maxPenetration, -double(m.getContactPoint(k).getDistance()));
    }
    std::sort(pairs.begin(), pairs.end());
    counts.pairs = long(std::unique(pairs.begin(), pairs.end()) - pairs.begin());
}

} // namespace shatter::scenes
