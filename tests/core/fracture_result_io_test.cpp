// The byte form of a FractureResult (fracture_result_io.h): a round trip replays to the same state, and
// corrupt bytes are errors naming the source, never a crash.
#include "fracture_fixtures.h"

#include "fracture_result_io.h"
#include "object_state.h"
#include "shatter/error.h"

#include <gtest/gtest.h>

#include <random>

namespace shatter::test
{
namespace
{

std::shared_ptr<const Asset> smallBox()
{
    static const std::shared_ptr<const Asset> asset =
        buildTestAsset(subdividedBox(Vec3(1.0, 0.7, 0.5), 8), "box", 0.7);
    return asset;
}

std::vector<std::byte> bytesOf(const FractureResult& result)
{
    BinaryWriter w;
    writeFractureResult(w, result);
    return w.bytes();
}

FractureResult readBack(std::span<const std::byte> bytes)
{
    BinaryReader r(bytes, "history.bin");
    return readFractureResult(r);
}

TEST(FractureResultIo, ReplayedHistoryRebuildsTheSameState)
{
    const std::shared_ptr<const Asset> asset = smallBox();
    AnalyticFracture fixture(asset->tetMesh, asset->surface);
    ObjectState original(asset), replayed(asset);
    std::mt19937_64 rng(5);
    std::vector<std::vector<std::byte>> history;
    const FractureResult first = randomVoronoiSplit(fixture, asset->tetMesh, 0, 3, rng);
    ASSERT_EQ(first.meshes.size(), first.fragments.size()); // the fixture's fragment surfaces
    original.apply(first);
    history.push_back(bytesOf(first));
    const FractureResult second = randomVoronoiSplit(fixture, asset->tetMesh, first.fragments[1], 4, rng);
    original.apply(second);
    history.push_back(bytesOf(second));

    for (const auto& bytes : history)
        replayed.apply(readBack(bytes));
    expectSameObjectState(original, replayed);
    const FractureResult back = readBack(history[0]);
    ASSERT_EQ(back.meshes.size(), first.meshes.size());
    for (std::size_t i = 0; i < back.meshes.size(); ++i)
    {
        EXPECT_EQ(back.meshes[i]->surface.vertices, first.meshes[i]->surface.vertices);
        EXPECT_EQ(back.meshes[i]->surface.triangles, first.meshes[i]->surface.triangles);
        EXPECT_EQ(back.meshes[i]->crack, first.meshes[i]->crack);
    }
}

TEST(FractureResultIo, CorruptBytesAreErrorsNamingTheSource)
{
    const std::shared_ptr<const Asset> asset = smallBox();
    AnalyticFracture fixture(asset->tetMesh, asset->surface);
    std::mt19937_64 rng(6);
    const FractureResult result = randomVoronoiSplit(fixture, asset->tetMesh, 0, 3, rng);
    ASSERT_FALSE(result.meshes.empty());
    ASSERT_FALSE(result.meshes[0]->crack.empty());

    auto expectError = [](const FractureResult& bad, const char* what)
    {
        const std::vector<std::byte> bytes = bytesOf(bad);
        try
        {
            readBack(bytes);
            ADD_FAILURE() << what << ": accepted";
        }
        catch (const Error& e)
        {
            EXPECT_NE(std::string(e.what()).find("history.bin"), std::string::npos) << e.what();
        }
    };
    // Every truncation is an error, never a read past the end.
    const std::vector<std::byte> whole = bytesOf(result);
    for (std::size_t size = 0; size < whole.size(); size += 1 + size / 16)
        EXPECT_THROW(readBack(std::span<const std::byte>(whole).first(size)), Error) << size;

    FractureResult bad = result;
    bad.nodeFragments.pop_back();
    expectError(bad, "node lists of different sizes");
    bad = result;
    bad.meshes.pop_back();
    expectError(bad, "a mesh missing");
    bad = result;
    auto mesh = std::make_shared<FragmentMesh>(*result.meshes[0]);
    mesh->surface.triangles[1][2] = Index(mesh->surface.vertices.size());
    bad.meshes[0] = mesh;
    expectError(bad, "a triangle past the vertices");
    mesh = std::make_shared<FragmentMesh>(*result.meshes[0]);
    mesh->surface.vertices[2].x() = std::numeric_limits<Real>::quiet_NaN();
    bad.meshes[0] = mesh;
    expectError(bad, "a NaN vertex");
    mesh = std::make_shared<FragmentMesh>(*result.meshes[0]);
    mesh->crack.pop_back();
    bad.meshes[0] = mesh;
    expectError(bad, "crack flags of the wrong size");
    bad = result;
    bad.cutTets[0].values[1][2] = std::numeric_limits<Real>::infinity();
    expectError(bad, "an infinite crack value");
    if (!bad.cutEdges.empty())
    {
        bad = result;
        bad.cutEdges[0].t = 1.5;
        expectError(bad, "a cut outside its edge");
    }
}

} // namespace
} // namespace shatter::test
