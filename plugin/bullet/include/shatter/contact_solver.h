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
// travel in the step. This solver visits contacts that touch a static or kinematic body last, so they
// have the final word (as Box2D v3 gives them priority in its constraint graph): the fragment stays
// on the ground and the ball's contact with it is what gives way, to be resolved over the next steps.
// Joints and friction keep Bullet's order. Bullet's SOLVER_RANDMIZE_ORDER mode shuffles the order in
// every iteration and so undoes this.
#pragma once

#include <BulletDynamics/ConstraintSolver/btSequentialImpulseConstraintSolver.h>

namespace shatter
{

/// btSequentialImpulseConstraintSolver with contacts against static and kinematic bodies solved last
/// in each iteration (and in the split-impulse pass); otherwise Bullet's solver, unchanged.
class StaticPriorityConstraintSolver : public btSequentialImpulseConstraintSolver
{
protected:
    btScalar solveGroupCacheFriendlySetup(btCollisionObject** bodies, int numBodies,
                                          btPersistentManifold** manifolds, int numManifolds,
                                          btTypedConstraint** constraints, int numConstraints,
                                          const btContactSolverInfo& info,
                                          btIDebugDraw* debugDrawer) override;
};

} // namespace shatter
