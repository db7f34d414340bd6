#include "shatter/contact_solver.h"

#include <BulletDynamics/Dynamics/btRigidBody.h>

#include <algorithm>
#include <vector>

namespace shatter
{

namespace
{

// Bullet gives every static object the one fixed solver body (no original body); a kinematic body
// has its own solver body, whose original body is static or kinematic.
bool immovable(const btSolverBody& body)
{
    return body.m_originalBody == nullptr || body.m_originalBody->isStaticOrKinematicObject();
}

} // namespace

btScalar StaticPriorityConstraintSolver::solveGroupCacheFriendlyIterations(
    btCollisionObject** bodies, int numBodies, btPersistentManifold** manifolds, int numManifolds,
    btTypedConstraint** constraints, int numConstraints, const btContactSolverInfo& info,
    btIDebugDraw* debugDrawer)
{
    // Bullet's iterations, its split-impulse pass included, visit the contact rows in this order.
    const int count = m_orderTmpConstraintPool.size();
    if (count > 1)
        std::stable_partition(&m_orderTmpConstraintPool[0], &m_orderTmpConstraintPool[0] + count,
                              [&](int row)
                              {
                                  const btSolverConstraint& c = m_tmpSolverContactConstraintPool[row];
                                  return !immovable(m_tmpSolverBodyPool[c.m_solverBodyIdA]) &&
                                         !immovable(m_tmpSolverBodyPool[c.m_solverBodyIdB]);
                              });
    const btScalar result = btSequentialImpulseConstraintSolver::solveGroupCacheFriendlyIterations(
        bodies, numBodies, manifolds, numManifolds, constraints, numConstraints, info, debugDrawer);
    propagateShock();
    return result;
}

void StaticPriorityConstraintSolver::propagateShock()
{
    const int bodyCount = m_tmpSolverBodyPool.size();
    const int rowCount = m_tmpSolverContactConstraintPool.size();
    if (rowCount == 0)
        return;
    // Levels: 0 for immovable bodies, else 1 + the lowest level among the bodies it touches
    // (breadth first over the contact graph); bodies that touch nothing immovable stay unlevelled.
    constexpr int kNone = 1 << 30;
    std::vector<int>& level = m_shock.level;
    std::vector<int>& firstEdge = m_shock.firstEdge;
    std::vector<int>& edges = m_shock.edges;
    std::vector<int>& fill = m_shock.fill;
    std::vector<int>& queue = m_shock.queue;
    std::vector<int>& order = m_shock.order;
    level.assign(std::size_t(bodyCount), kNone);
    firstEdge.assign(std::size_t(bodyCount) + 1, 0);
    edges.resize(2 * std::size_t(rowCount));
    for (int r = 0; r < rowCount; ++r)
    {
        const btSolverConstraint& c = m_tmpSolverContactConstraintPool[r];
        ++firstEdge[std::size_t(c.m_solverBodyIdA) + 1];
        ++firstEdge[std::size_t(c.m_solverBodyIdB) + 1];
    }
    for (int b = 0; b < bodyCount; ++b)
        firstEdge[std::size_t(b) + 1] += firstEdge[std::size_t(b)];
    fill.assign(firstEdge.begin(), firstEdge.end() - 1);
    for (int r = 0; r < rowCount; ++r)
    {
        const btSolverConstraint& c = m_tmpSolverContactConstraintPool[r];
        edges[std::size_t(fill[std::size_t(c.m_solverBodyIdA)]++)] = c.m_solverBodyIdB;
        edges[std::size_t(fill[std::size_t(c.m_solverBodyIdB)]++)] = c.m_solverBodyIdA;
    }
    queue.clear();
    for (int b = 0; b < bodyCount; ++b)
        if (immovable(m_tmpSolverBodyPool[b]))
        {
            level[std::size_t(b)] = 0;
            queue.push_back(b);
        }
    for (std::size_t head = 0; head < queue.size(); ++head)
    {
        const int b = queue[head];
        for (int e = firstEdge[std::size_t(b)]; e < firstEdge[std::size_t(b) + 1]; ++e)
        {
            const int other = edges[std::size_t(e)];
            if (level[std::size_t(other)] == kNone)
            {
                level[std::size_t(other)] = level[std::size_t(b)] + 1;
                queue.push_back(other);
            }
        }
    }
    // Rows bottom up: by the upper body's level, in row order within a level (a counting sort; the
    // per-level counts reuse `fill`). Breadth first, the last body queued is the deepest.
    const int deepest = queue.empty() ? 0 : level[std::size_t(queue.back())];
    auto upperLevel = [&](int r)
    {
        const btSolverConstraint& c = m_tmpSolverContactConstraintPool[r];
        const int a = level[std::size_t(c.m_solverBodyIdA)], b = level[std::size_t(c.m_solverBodyIdB)];
        return a != kNone && b != kNone && a != b ? std::max(a, b) : 0;
    };
    fill.assign(std::size_t(deepest) + 2, 0);
    for (int r = 0; r < rowCount; ++r)
        if (const int key = upperLevel(r); key > 0)
            ++fill[std::size_t(key) + 1];
    for (int key = 1; key <= deepest; ++key)
        fill[std::size_t(key) + 1] += fill[std::size_t(key)];
    order.resize(std::size_t(fill[std::size_t(deepest) + 1]));
    for (int r = 0; r < rowCount; ++r)
        if (const int key = upperLevel(r); key > 0)
            order[std::size_t(fill[std::size_t(key)]++)] = r;
    for (int r : order)
    {
        btSolverConstraint& c = m_tmpSolverContactConstraintPool[r];
        btSolverBody& bodyA = m_tmpSolverBodyPool[c.m_solverBodyIdA];
        btSolverBody& bodyB = m_tmpSolverBodyPool[c.m_solverBodyIdB];
        const bool moveA = level[std::size_t(c.m_solverBodyIdA)] > level[std::size_t(c.m_solverBodyIdB)];
        if (!(c.m_jacDiagABInv > 0))
            continue;
        // The row's velocity deficit (Bullet's lower-limit row, its terms divided by jacDiagABInv).
        const btScalar deltaVel = c.m_contactNormal1.dot(bodyA.internalGetDeltaLinearVelocity()) +
                                  c.m_relpos1CrossNormal.dot(bodyA.internalGetDeltaAngularVelocity()) +
                                  c.m_contactNormal2.dot(bodyB.internalGetDeltaLinearVelocity()) +
                                  c.m_relpos2CrossNormal.dot(bodyB.internalGetDeltaAngularVelocity());
        const btScalar deficit =
            (c.m_rhs - btScalar(c.m_appliedImpulse) * c.m_cfm) / c.m_jacDiagABInv - deltaVel;
        btSolverBody& moved = moveA ? bodyA : bodyB;
        const btVector3& normal = moveA ? c.m_contactNormal1 : c.m_contactNormal2;
        const btVector3& angular = moveA ? c.m_angularComponentA : c.m_angularComponentB;
        const btVector3& relposCrossNormal = moveA ? c.m_relpos1CrossNormal : c.m_relpos2CrossNormal;
        const btScalar denominator =
            normal.dot(normal * moved.internalGetInvMass()) + relposCrossNormal.dot(angular);
        if (!(denominator > 0))
            continue;
        btScalar impulse = deficit / denominator;
        const btScalar sum = btScalar(c.m_appliedImpulse) + impulse;
        if (sum < c.m_lowerLimit)
        {
            impulse = c.m_lowerLimit - btScalar(c.m_appliedImpulse);
            c.m_appliedImpulse = c.m_lowerLimit;
        }
        else
            c.m_appliedImpulse = sum;
        moved.internalApplyImpulse(normal * moved.internalGetInvMass(), angular, impulse);
    }
}

} // namespace shatter
