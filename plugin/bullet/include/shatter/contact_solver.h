// A constraint solver for worlds where light fragments lie under heavy bodies:
//
//     shatter::StaticPriorityConstraintSolver solver;   // in place of btSequentialImpulseConstraintSolver
//     btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, config.get());
//
// Bullet's sequential-impulse solver visits the contacts of an island in manifold order, every
// iteration, and the contacts it visits last are the ones the step's velocities satisfy best. When a
// steel ball lands on a gram-sized fragment lying on the ground, the ball–fragment contact undoes, in
// each iteration, nearly all that the fragment–ground contact did (the mass ratio is 1000:1), and ten
// iterations leave the fragment moving with the ball: it is driven into the ground by the ball's
// travel in the step. This solver changes two things:
// - contacts that touch a static or kinematic body are visited last in every iteration (and in the
//   split-impulse pass), so they have the final word, as Box2D v3 gives them priority;
// - after the iterations, one pass (the shock propagation of Guendelman, Bridson & Fedkiw 2003, here on
//   velocities) visits the contacts bottom up by the level of their bodies in the contact graph (0 for
//   static bodies, 1 for the bodies resting on them, ...) and solves each for its upper body alone, the
//   lower one held fixed; so a ball on fragments piled on the ground is stopped by the pile instead of
//   carrying it into the ground. Contacts between bodies of one level, and of bodies that touch
//   nothing static, keep the iterations' result.
// Joints and friction keep Bullet's order. Bullet's SOLVER_RANDMIZE_ORDER mode shuffles the order in
// every iteration and so undoes the first change.
#pragma once

#include <BulletDynamics/ConstraintSolver/btSequentialImpulseConstraintSolver.h>

#include <vector>

namespace shatter
{

/// btSequentialImpulseConstraintSolver with contacts against static and kinematic bodies solved last
/// in each iteration (and in the split-impulse pass), and a shock-propagation pass after the
/// iterations; otherwise Bullet's solver, unchanged.
class StaticPriorityConstraintSolver : public btSequentialImpulseConstraintSolver
{
protected:
    btScalar solveGroupCacheFriendlyIterations(btCollisionObject** bodies, int numBodies,
                                               btPersistentManifold** manifolds, int numManifolds,
                                               btTypedConstraint** constraints, int numConstraints,
                                               const btContactSolverInfo& info,
                                               btIDebugDraw* debugDrawer) override;

private:
    void propagateShock();

    struct ShockScratch // propagateShock's arrays, kept to reuse their memory
    {
        std::vector<int> level, firstEdge, edges, fill, queue, order;
    };
    ShockScratch m_shock;
};

} // namespace shatter
