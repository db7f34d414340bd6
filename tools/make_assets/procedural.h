// The papers' procedural objects (TVCG Table 1: piggy bank, plate, brick, shelf; plus a ball to drop
// on plates), built by shatter_make_assets into assets/meshes/*.obj.
//
// Conventions shared by every object: metres, +Y up, centred at the origin in x and z, resting on
// y = 0 (the ball is centred at the origin instead). Every mesh is a closed, outward-oriented
// 2-manifold without self-intersections; the piggy bank has a second, inward-oriented shell (its
// cavity) and a ring-shaped tail (genus 1). Every builder is deterministic: no RNG, no unordered containers,
// fixed iteration orders, so the committed files are reproducible byte for byte on one platform.
#pragma once

#include "shatter/mesh.h"

#include <string>
#include <vector>

namespace shatter::assets
{

/// TVCG Table 1 figures an object is tuned to; 0 where the paper gives none.
struct Target
{
    Index triangles = 0;
    Index tetrahedra = 0;
    Index points = 0; ///< surface vertices + interior tet nodes
};

/// One generated object: its file stem under assets/meshes/, its targets and its builder, which is
/// given the targets.
struct ProceduralObject
{
    const char* name;
    Target target;
    TriMesh (*build)(const Target& target);
};

/// The five objects in output order.
const std::vector<ProceduralObject>& proceduralObjects();

/// Hollow ceramic piggy bank, 19 x 14 x 12 cm, snout towards +x (piggy_bank.cpp).
TriMesh makePiggyBank(const Target& target);
/// Dinner plate, 26 cm across and 2 cm tall, a surface of revolution (plate.cpp).
TriMesh makePlate(const Target& target);
/// Brick 21.5 x 6.5 x 10.25 cm lying flat, long side along x (box_shapes.cpp).
TriMesh makeBrick(const Target& target);
/// Wall shelf 1.2 m wide, 30 cm deep, 20.5 cm tall: a board on two corbels, with a front lip
/// (box_shapes.cpp).
TriMesh makeShelf(const Target& target);
/// Sphere of radius 5.5 cm centred at the origin (ball.cpp).
TriMesh makeBall(const Target& target);

} // namespace shatter::assets
