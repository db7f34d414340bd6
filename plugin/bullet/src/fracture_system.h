// FractureSystem: brittle fracture for the user's existing btDiscreteDynamicsWorld (DESIGN.md §3, §5).
//
//     btDiscreteDynamicsWorld world(...);                 // the user's, with registerCollisionAlgorithms
//     shatter::fracture::FractureSystem fracture(world);  // installs the post-tick callback
//     auto piggy = fracture.addObject(asset, material, placement);
//     world.stepSimulation(1.0 / 60);                     // fragments appear after the substep that broke it
//
// After each internal step (post-tick callback, reference/bullet_integration.md §6) it sums the contact
// impulses on every registered body over all manifolds of its pairs (m_appliedImpulse / dt → force,
// material frame), runs FracturePipeline on the bodies whose impact passes the criterion, applies the
// result to the object's ObjectState (incremental collision updates, TVCG §4.2, §6), removes the broken
// body and adds one body per new fragment with the parent's v + ω × r at the fragment's centre of mass.
// Fragments fracture again the same way (repeated fracture, restricted to their tets).
//
// Bodies and shapes are owned by the system; the world must outlive it. The destructor removes its
// bodies from the world. The world's internal tick callback belongs to the system while it lives (Bullet
// has one slot); a program that needs its own post-tick work calls onInternalTick itself from its
// callback after constructing with installCallback = false.
#pragma once

#include "fracture_pipeline.h"

#include <Eigen/Geometry>
#include <LinearMath/btScalar.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

class btDiscreteDynamicsWorld;
class btDynamicsWorld;
class btRigidBody;
class btCollisionObject;

namespace shatter::fracture
{

/// How fragment bodies collide (the baselines of TVCG §7 for the same fracture events).
enum class FragmentShapeKind
{
    Fracturable, ///< FracturableShape (sphere tree + fragment distance field): Shatter
    GImpact,    ///< btGImpactMeshShape of the fragment surface (needs btGImpactCollisionAlgorithm registered)
    ConvexHull, ///< one btConvexHullShape per fragment
};

/// Settings of a FractureSystem; checked by its constructor.
struct FractureSystemSettings
{
    PipelineSettings pipeline;
    ObjectStateSettings objectState; ///< of every object's ObjectState (locator, grid, restructure method)
    FragmentShapeKind shapes = FragmentShapeKind::Fracturable;
    bool installCallback = true; ///< install onInternalTick as the world's post-tick callback
    bool enabled = true;         ///< false: collect impacts but never break (demo toggle)
    Real minImpulse = 0;         ///< N·s; contacts with a smaller impulse are ignored
    /// Small fragments stop breaking through Material::minFragmentVolume (per object), the one size
    /// limit; the system has no second one.
    int maxEventsPerStep = 8; ///< the strongest impacts of one step are processed first
    /// The evaluation gate: a deformation solve and the criterion cost milliseconds, so resting contacts
    /// must cost nothing. A body is evaluated in a step where its total contact impulse exceeds
    /// impulseGrowth × its held impulse: the largest impulse it has carried without breaking, which
    /// decays by heldImpulseDecay per step toward its current load (a sharper hit some steps after a heavy
    /// landing is looked at again, a body at rest is not). Contact age is no signal: the self-adapting
    /// contact selection renews contact points of resting pairs. evaluateEveryStep turns the gate off.
    bool evaluateEveryStep = false;
    Real impulseGrowth = 1.25;   ///< ≥ 1
    Real heldImpulseDecay = 0.9; ///< per internal step, in (0, 1]
    std::uint64_t seed = 1;      ///< event k of object o uses a seed derived from (seed, o, k)
};

using ObjectId = std::uint32_t;

/// Per-body options of addObject.
struct ObjectSettings
{
    bool dynamic = true;
    Eigen::Vector3d linearVelocity = Eigen::Vector3d::Zero();  ///< world frame, m/s
    Eigen::Vector3d angularVelocity = Eigen::Vector3d::Zero(); ///< world frame, rad/s
    Real friction = 0.5;
    Real restitution = 0.0;
    bool fracturable = true; ///< false: collides as a fracturable shape but never breaks
};

/// One processed fracture event.
struct FractureEvent
{
    ObjectId object = 0;
    FragmentId parent = kNoFragment;
    std::vector<FragmentId> fragments;
    FractureEventStats stats;
};

/// Totals of the last internal step (the "fracture" and "update" columns of TVCG Table 3).
struct FractureStepStats
{
    int events = 0;
    double fractureMs = 0;   ///< pipeline (deformation, plan, tessellation)
    double updateMs = 0;     ///< ObjectState::apply + body replacement
    Index liveFragments = 0; ///< bodies of the system after the step
    int evaluations = 0;     ///< pipeline runs (bodies with an impact), broken or not
    Real maxWholeEnergy = 0; ///< largest E_D(N = 1) of those runs (J·m² for α = 1): compare with γ
    int failedEvents = 0;    ///< events whose pipeline threw shatter::Error (the body stayed whole)
    /// New fragments that did not become bodies: no enclosed volume, or, as fracturable shapes, no
    /// sphere-tree point (a piece inside one tet that crosses none of its edges: it could not collide).
    int bodylessFragments = 0;
    std::string lastError; ///< the message of the last failure above
};

class FractureSystem
{
public:
    explicit FractureSystem(btDiscreteDynamicsWorld& world, const FractureSystemSettings& settings = {});
    ~FractureSystem();
    FractureSystem(const FractureSystem&) = delete;
    FractureSystem& operator=(const FractureSystem&) = delete;

    /// Adds an unbroken object of `asset` with its material frame at `placement` (world), as one body.
    /// Throws shatter::Error for a bad material or options.
    ObjectId addObject(std::shared_ptr<const Asset> asset, const Material& material,
                       const Eigen::Isometry3d& placement, const ObjectSettings& options = {});
    /// Removes the object's bodies from the world and forgets it.
    void removeObject(ObjectId object);
    /// Removes every object.
    void clear();

    std::span<const ObjectId> objects() const;
    const ObjectState& state(ObjectId object) const;
    const Material& material(ObjectId object) const;
    /// O of a live fragment's body: material frame → body frame (centre of mass, principal axes), for
    /// every FragmentShapeKind. A material point x is at T·O·x, T the body's world transform.
    const Eigen::Isometry3d& materialToBody(ObjectId object, FragmentId fragment) const;
    /// The live fragments' bodies of an object (owned by the system).
    std::vector<btRigidBody*> bodies(ObjectId object) const;
    /// (object, fragment) of a body the system owns; false for other bodies.
    bool lookup(const btCollisionObject* body, ObjectId& object, FragmentId& fragment) const;

    /// Breaks fragment `fragment` of `object` now with the given world-frame impulses at world points (the
    /// demo's and scripts' "apply an impulse"), bypassing contact collection. Returns the event if it broke.
    std::optional<FractureEvent> breakWithImpulses(ObjectId object, FragmentId fragment,
                                                   std::span<const Eigen::Vector3d> points,
                                                   std::span<const Eigen::Vector3d> impulses, Real timeStep);

    /// The post-tick work; called by the installed callback or by the program.
    void onInternalTick(btScalar timeStep);

    /// Events of the last internal step, and all events since construction.
    std::span<const FractureEvent> lastStepEvents() const;
    std::size_t totalEvents() const;
    const FractureStepStats& lastStepStats() const;

    /// The settings, editable between steps (enabled, minImpulse, shapes of later fragments, …); the
    /// pipeline settings are read once by the constructor: change them through a new system.
    FractureSystemSettings& settings();
    FracturePipeline& pipeline();

private:
    struct Impl;
    std::unique_ptr<Impl> impl;
};

} // namespace shatter::fracture
