#include "shatter/contact_solver.h"

#include <BulletDynamics/Dynamics/btRigidBody.h>

#include <algorithm>

namespace shatter
{

btScalar StaticPriorityConstraintSolver::solveGroupCacheFriendlySetup(
    btCollisionObject** bodies, int numBodies, btPersistentManifold** manifolds, int numManifolds,
    btTypedConstraint** constraints, int numConstraints, const btContactSolverInfo& info,
    btIDebugDraw* debugDrawer)
{
    const btScalar result = btSequentialImpulseConstraintSolver::solveGroupCacheFriendlySetup(
        bodies, numBodies, manifolds, numManifolds, constraints, numConstraints, info, debugDrawer);
    // Bullet gives every static object the one fixed solver body (no original body); a kinematic body
    // has its own solver body, whose original body is static or kinematic.
    auto immovable = [this](int solverBody)
    {
        const btRigidBody* body = m_tmpSolverBodyPool[solverBody].m_originalBody;
        return body == nullptr || body->isStaticOrKinematicObject();
    };
    const int count = m_orderTmpConstraintPool.size();
    if (count > 1)
        std::stable_partition(&m_orderTmpConstraintPool[0], &m_orderTmpConstraintPool[0] + count,
                              [&](int row)
                              {
                                  const btSolverConstraint& c = m_tmpSolverContactConstraintPool[row];
                                  return !immovable(c.m_solverBodyIdA) && !immovable(c.m_solverBodyIdB);
                              });
    return result;
}

} // namespace shatter
