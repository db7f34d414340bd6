// importMesh on the corpus of tests/data/{good,bad}, written by tests/data/make_meshes.py.
#include "mesh_import.h"

#include "mesh_test_shapes.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

// Assimp 5.2 leaks part of its scene when its ASCII STL or glTF importer gives up on a corrupt file.
// Not ours to fix, so LeakSanitizer (in the sanitizer build) ignores leaks from inside assimp.
extern "C" const char* __lsan_default_suppressions()
{
    return "leak:libassimp.so\n";
}

namespace shatter
{
namespace
{

using test::badMesh;
using test::combine;
using test::cube;
using test::goodMesh;
using test::hasNote;

// Plain "v"/"f" OBJ reader for looking at corpus files independently of the importer.
TriMesh readPlainObj(const std::filesystem::path& file)
{
    TriMesh mesh;
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line))
    {
        std::istringstream tokens(line);
        std::string keyword;
        tokens >> keyword;
        if (keyword == "v")
        {
            Vec3 p;
            tokens >> p.x() >> p.y() >> p.z();
            mesh.vertices.push_back(p);
        }
        else if (keyword == "f")
        {
            Triangle tri;
            tokens >> tri[0] >> tri[1] >> tri[2];
            mesh.triangles.push_back({tri[0] - 1, tri[1] - 1, tri[2] - 1});
        }
    }
    return mesh;
}

// --- the bad corpus: each file raises its own problem, naming the file -----------------------------

struct BadCase
{
    const char* file;
    MeshProblem problem;
    bool repair; ///< with repair on: the problem survives repair (or, for only_degenerate, becomes Empty)
};

const BadCase kBadCases[] = {
    {"open_box.obj", MeshProblem::BoundaryEdges, false},
    {"nonmanifold_edge.obj", MeshProblem::NonManifoldEdges, true},
    {"bowtie_vertex.obj", MeshProblem::NonManifoldVertices, true},
    {"nan_vertex.stl", MeshProblem::NonFinite, true},
    {"empty.obj", MeshProblem::Empty, false},
    {"only_degenerate.obj", MeshProblem::DegenerateTriangles, false},
    {"only_degenerate.obj", MeshProblem::Empty, true},
    {"inconsistent_orientation.obj", MeshProblem::InconsistentOrientation, false},
    {"duplicate_triangles.obj", MeshProblem::DuplicateTriangles, false},
    {"self_intersecting.obj", MeshProblem::SelfIntersection, true},
    {"overlapping_boxes.obj", MeshProblem::SelfIntersection, true},
    {"two_boxes.obj", MeshProblem::MultipleComponents, true},
    {"ball_in_cavity.obj", MeshProblem::MultipleComponents, true},
    {"mobius.obj", MeshProblem::InconsistentOrientation, true},
    {"points.xyz", MeshProblem::UnknownFormat, true},
    {"garbage.obj", MeshProblem::UnknownFormat, true},
    {"truncated.stl", MeshProblem::ReadFailed, true},
    {"truncated.off", MeshProblem::ReadFailed, true},
    {"bad_index.obj", MeshProblem::ReadFailed, true},
    {"bad_index.ply", MeshProblem::ReadFailed, true},
    {"huge_coordinates.obj", MeshProblem::HugeCoordinates, true},
    {"tiny_tetrahedron.obj", MeshProblem::TooSmall, true},
    {"missing_file.obj", MeshProblem::ReadFailed, false},
};

void PrintTo(const BadCase& c, std::ostream* out)
{
    *out << c.file << (c.repair ? " with repair" : "");
}

class MeshImportBadFile : public ::testing::TestWithParam<BadCase>
{
};

TEST_P(MeshImportBadFile, RaisesItsOwnProblemNamingTheFile)
{
    const BadCase& c = GetParam();
    ImportSettings options;
    options.repair = c.repair;
    try
    {
        importMesh(badMesh(c.file), options);
        FAIL() << c.file << " imported";
    }
    catch (const MeshError& e)
    {
        EXPECT_EQ(e.meshProblem(), c.problem) << e.what();
        EXPECT_NE(std::string(e.what()).find(c.file), std::string::npos) << e.what();
        EXPECT_FALSE(e.detail().empty());
    }
}

INSTANTIATE_TEST_SUITE_P(Corpus, MeshImportBadFile, ::testing::ValuesIn(kBadCases),
                         [](const ::testing::TestParamInfo<BadCase>& info)
                         {
                             std::string name =
                                 std::string(info.param.file) + (info.param.repair ? "_repair" : "");
                             for (char& ch : name)
                                 ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                             return name;
                         });

std::string errorOf(const std::filesystem::path& file, ImportSettings options = {})
{
    try
    {
        importMesh(file, options);
    }
    catch (const MeshError& e)
    {
        return e.what();
    }
    return "";
}

TEST(MeshImport, MessagesCountAndNameTheFirstOffender)
{
    EXPECT_NE(errorOf(badMesh("nonmanifold_edge.obj")).find("shared by 4 triangles"), std::string::npos);
    EXPECT_NE(errorOf(badMesh("open_box.obj")).find("4 edges have a single triangle, around 1 hole"),
              std::string::npos);
    EXPECT_NE(errorOf(badMesh("bowtie_vertex.obj")).find("with 2 fans"), std::string::npos);
    EXPECT_NE(errorOf(badMesh("inconsistent_orientation.obj")).find("3 edges are used twice"),
              std::string::npos);
    EXPECT_NE(errorOf(badMesh("truncated.stl")).find("promises 12 triangles"), std::string::npos);
    EXPECT_NE(errorOf(goodMesh("scanned_sphere_holes.ply")).find("around 4 holes"), std::string::npos);
    EXPECT_NE(errorOf(badMesh("huge_coordinates.obj")).find("1e+30"), std::string::npos);
}

TEST(MeshImport, InvertedMeshIsFlippedWithANote)
{
    const TriMesh file = readPlainObj(badMesh("inverted.obj"));
    ASSERT_LT(file.signedVolume(), 0);
    ImportReport report;
    const TriMesh mesh = importMesh(badMesh("inverted.obj"), {}, &report);
    EXPECT_NEAR(mesh.signedVolume(), 8, 1e-12);
    EXPECT_TRUE(hasNote(report, "flipped inside-out mesh")) << ::testing::PrintToString(report.notes);
    EXPECT_EQ(report.flippedTriangles, 12u);
    ASSERT_EQ(mesh.triangles.size(), file.triangles.size());
    for (Index t = 0; t < mesh.triangles.size(); ++t)
        EXPECT_TRUE(mesh.normal(t).isApprox(-file.normal(t))) << "triangle " << t;
}

// --- the good corpus ---------------------------------------------------------------------------------

TEST(MeshImport, EveryFormatGivesTheSameWeldedMesh)
{
    ImportReport objReport;
    const TriMesh reference = importMesh(goodMesh("box.obj"), {}, &objReport);
    EXPECT_EQ(reference.vertices.size(), 56u);
    EXPECT_EQ(reference.triangles.size(), 108u);
    EXPECT_EQ(objReport.inputTriangles, 108u);
    EXPECT_TRUE(objReport.notes.empty()) << ::testing::PrintToString(objReport.notes);
    for (const char* name :
         {"box_binary.stl", "box_ascii.stl", "box.ply", "box_binary.ply", "box.off", "box.gltf"})
    {
        ImportReport report;
        const TriMesh mesh = importMesh(goodMesh(name), {}, &report);
        EXPECT_EQ(mesh.vertices, reference.vertices) << name;
        EXPECT_EQ(mesh.triangles, reference.triangles) << name;
        EXPECT_EQ(report.inputTriangles, 108u) << name;
    }
    ImportReport stlReport;
    importMesh(goodMesh("box_binary.stl"), {}, &stlReport);
    EXPECT_EQ(stlReport.inputVertices, 324u);
    EXPECT_EQ(stlReport.weldedVertices, 324u - 56u);
}

TEST(MeshImport, CavityIsPartOfTheObjectAndFacesInward)
{
    ImportReport report;
    const TriMesh mesh = importMesh(goodMesh("cube_with_cavity.obj"), {}, &report);
    EXPECT_EQ(report.shells, 2u);
    EXPECT_EQ(report.cavities, 1u);
    EXPECT_TRUE(report.notes.empty()) << ::testing::PrintToString(report.notes);
    EXPECT_NEAR(mesh.signedVolume(), 64 - 8, 1e-12);

    // Wound the wrong way, the cavity is flipped to face into it; inside out, both shells are.
    ImportReport fixed;
    const TriMesh wrong =
        checkMesh(combine(cube(Vec3::Zero(), 2), cube(Vec3::Zero(), 1)), "wrong cavity", {}, &fixed);
    EXPECT_NEAR(wrong.signedVolume(), 56, 1e-12);
    EXPECT_TRUE(hasNote(fixed, "to face into the cavity")) << ::testing::PrintToString(fixed.notes);
    EXPECT_EQ(fixed.flippedTriangles, 12u);
    ImportReport inverted;
    const TriMesh insideOut =
        checkMesh(combine(cube(Vec3::Zero(), 2, true), cube(Vec3::Zero(), 1)), "inside out", {}, &inverted);
    EXPECT_NEAR(insideOut.signedVolume(), 56, 1e-12);
    EXPECT_EQ(inverted.flippedTriangles, 24u);
}

// The OBJ reader: every corner form, negative indices, continued lines, comments and skipped statements
// give the same mesh as plain "v"/"f" lines; bad corners and indices name the line.
TEST(MeshImport, ObjCornerFormsAndErrorsNameTheLine)
{
    const std::filesystem::path scratch = test::scratchDir("MeshImport_ObjForms");
    auto write = [&](const char* name, const std::string& text)
    {
        const std::filesystem::path file = scratch / name;
        std::ofstream(file, std::ios::binary) << text;
        return file;
    };
    const std::string vertices = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n";
    const TriMesh plain = importMesh(write("plain.obj", vertices + "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"));
    ASSERT_EQ(plain.triangles.size(), 4u);
    const TriMesh forms = importMesh(write(
        "forms.obj",
        "# a tetrahedron\nmtllib none.mtl\no tet\n" + vertices +
            "vt 0 0\nvn 0 0 1\ng side\nusemtl glass\ns 1\nf 1/1 3/1 2/1\n"
            "f 1//1 2//1 4//1 # trailing comment\nf -4/1/1 -1/1/1 \\\n -2/1/1\nl 1 2\np 3\nfo 2 3 4\r\n"));
    EXPECT_EQ(forms.vertices, plain.vertices);
    EXPECT_EQ(forms.triangles, plain.triangles);

    struct Case
    {
        const char* text;
        const char* expected;
    };
    for (const Case& c : {Case{"v 0 0\nf 1 1 1\n", "fewer than three coordinates on line 1"},
                          Case{"v 0 x 0\n", "bad vertex coordinate 'x' on line 1"},
                          Case{"v 0 0 0\nf 1 0 1\n", "bad face corner '0' on line 2"},
                          Case{"v 0 0 0\nf 1 -2 1\n", "refers back past the first vertex on line 2"},
                          Case{"v 0 0 0\n\nf 1 9 1\n", "line 3 refers to vertex 9 but the file has 1"}})
    {
        try
        {
            importMesh(write("bad.obj", c.text));
            ADD_FAILURE() << c.text << " was accepted";
        }
        catch (const MeshError& e)
        {
            EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos) << e.what();
            EXPECT_EQ(e.meshProblem(), MeshProblem::ReadFailed) << e.what();
        }
    }
}

// Deterministic mutations of the good files: import must return or throw MeshError, nothing else.
TEST(MeshImport, CorruptFilesNeverCrash)
{
    const std::filesystem::path scratch = test::scratchDir("MeshImport_CorruptFiles");
    std::uint64_t state = 42;
    auto random = [&](std::uint64_t n)
    {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return (state >> 33) % n;
    };
    int imported = 0;
    int rejected = 0;
    for (const char* name : {"box.obj", "box_binary.stl", "box_ascii.stl", "box.ply", "box_binary.ply",
                             "box.off", "box.gltf", "cube_with_cavity.obj"})
    {
        std::ifstream in(goodMesh(name), std::ios::binary);
        const std::string original((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        for (int round = 0; round < 60; ++round)
        {
            std::string bytes = original;
            if (round % 3 == 0)
                bytes.resize(random(bytes.size()));
            else
                for (std::uint64_t k = 0, n = 1 + random(6); k < n; ++k)
                    bytes[random(bytes.size())] =
                        char(round % 3 == 1 ? random(256) : "0123456789-.e \n"[random(15)]);
            const std::filesystem::path file = scratch / (std::to_string(round) + "_" + name);
            std::ofstream(file, std::ios::binary) << bytes;
            try
            {
                importMesh(file);
                ++imported;
            }
            catch (const MeshError&)
            {
                ++rejected;
            }
        }
    }
    EXPECT_GT(rejected, 0);
    EXPECT_EQ(imported + rejected, 8 * 60);
}

} // namespace
} // namespace shatter
