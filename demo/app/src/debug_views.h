// Debug views of the collision structures (TVCG §4-6): contact points and normals, the sphere-tree
// nodes of one level, a slice through the fragment distance field, and the tet mesh of each fragment.
// Fragment colours are applied by the app when it builds the draw items.
#pragma once

#include "camera.h"
#include "line_batch.h"
#include "renderer.h"
#include "scene_view.h"

#include <map>
#include <vector>

namespace shatter::scenes
{
class SceneWorld;
}

namespace shatter::demo
{

/// The deepest sphere-tree level the views offer (panel slider, --view spheres:LEVEL); a tree with fewer
/// levels draws nothing at a deeper one.
constexpr int kMaxSphereLevel = 14;

struct DebugViewSettings
{
    bool contacts = false;
    bool spheres = false;
    int sphereLevel = 4; ///< level of the original tree (0 = root)
    bool slice = false;
    int sliceAxis = 2;        ///< material-frame axis the slice is normal to (0 x, 1 y, 2 z)
    float sliceOffset = 0.5f; ///< position along that axis, as a fraction of the object's bounds
    bool fragmentColors = false;
    bool tets = false;
    bool hideMeshes = false; ///< draw only the debug geometry
};

/// Counts of what the views drew this frame (shown in the panel).
struct DebugViewCounts
{
    long contacts = 0;
    long spheres = 0;
    long tetEdges = 0;
    long slices = 0;
};

class DebugViews
{
public:
    DebugViews();
    ~DebugViews();
    DebugViews(const DebugViews&) = delete;
    DebugViews& operator=(const DebugViews&) = delete;

    /// Lines of the enabled views, in world coordinates.
    void collectLines(scenes::SceneWorld& world, const std::vector<BodyView>& views,
                      const OrbitCamera& camera, float sceneScale, LineBatch& depthLines,
                      LineBatch& overlayLines);
    /// Distance-field slices of every fragment (textures are rebuilt when an object breaks or the plane
    /// moves).
    std::vector<SliceItem> slices(scenes::SceneWorld& world, const std::vector<BodyView>& views);
    /// Drops every cache (the world was replaced).
    void clear();

    DebugViewSettings settings;
    const DebugViewCounts& counts() const { return drawn; }

private:
    struct SliceTexture
    {
        GLuint texture = 0;
        FragmentId fragmentCount = 0;
        int axis = -1;
        float offset = -1;
        Eigen::Vector3f corners[4];
        float band = 0.01f;
    };
    struct TetLines
    {
        FragmentId fragmentCount = 0;
        std::map<FragmentId, std::vector<Eigen::Vector3f>> edges; // material frame, pairs
    };
    const SliceTexture& sliceFor(const ObjectState& state, fracture::ObjectId object);
    const TetLines& tetsFor(const ObjectState& state, fracture::ObjectId object);

    std::map<fracture::ObjectId, SliceTexture> sliceTextures;
    std::map<fracture::ObjectId, TetLines> tetLines;
    DebugViewCounts drawn;
};

} // namespace shatter::demo
