#!/usr/bin/env python3
"""Writes the mesh import test corpus: tests/data/good/* and tests/data/bad/*.

Deterministic (no clocks, no global random state) and dependency-free, so the files can be
regenerated and diffed: `python3 tests/data/make_meshes.py`. Coordinates of the multi-format box
are dyadic rationals, exact in float32, so every format must import to the same welded mesh.
"""

import base64
import json
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
GOOD = os.path.join(HERE, "good")
BAD = os.path.join(HERE, "bad")


# --- writers -------------------------------------------------------------------------------------


def fmt(x):
    return "%.9g" % x


def write_obj(path, verts, faces, comment):
    with open(path, "w") as f:
        f.write("# %s\n" % comment)
        for v in verts:
            f.write("v %s\n" % " ".join(fmt(c) for c in v))
        for face in faces:
            f.write("f %s\n" % " ".join(str(i + 1) for i in face))


def stl_binary_bytes(verts, faces, header=b"shatter test mesh"):
    out = bytearray(header.ljust(80, b" "))
    out += struct.pack("<I", len(faces))
    for a, b, c in faces:
        out += struct.pack("<3f", 0.0, 0.0, 0.0)  # importers recompute normals
        for i in (a, b, c):
            out += struct.pack("<3f", *verts[i])
        out += b"\0\0"
    return bytes(out)


def write_stl_ascii(path, verts, faces):
    with open(path, "w") as f:
        f.write("solid shatter\n")
        for face in faces:
            f.write("  facet normal 0 0 0\n    outer loop\n")
            for i in face:
                f.write("      vertex %s\n" % " ".join(fmt(c) for c in verts[i]))
            f.write("    endloop\n  endfacet\n")
        f.write("endsolid shatter\n")


def ply_header(fmt_name, nv, nf):
    return (
        "ply\nformat %s 1.0\ncomment shatter test mesh\nelement vertex %d\n"
        "property float x\nproperty float y\nproperty float z\nelement face %d\n"
        "property list uchar int vertex_indices\nend_header\n" % (fmt_name, nv, nf)
    )


def write_ply_ascii(path, verts, faces):
    with open(path, "w") as f:
        f.write(ply_header("ascii", len(verts), len(faces)))
        for v in verts:
            f.write("%s\n" % " ".join(fmt(c) for c in v))
        for face in faces:
            f.write("%d %s\n" % (len(face), " ".join(str(i) for i in face)))


def write_ply_binary(path, verts, faces):
    with open(path, "wb") as f:
        f.write(ply_header("binary_little_endian", len(verts), len(faces)).encode())
        for v in verts:
            f.write(struct.pack("<3f", *v))
        for face in faces:
            f.write(struct.pack("<B3i", 3, *face))


def write_off(path, verts, faces):
    with open(path, "w") as f:
        f.write("OFF\n%d %d 0\n" % (len(verts), len(faces)))
        for v in verts:
            f.write("%s\n" % " ".join(fmt(c) for c in v))
        for face in faces:
            f.write("%d %s\n" % (len(face), " ".join(str(i) for i in face)))


def write_gltf(path, verts, faces, translation):
    """One mesh under a translated node; positions are stored minus the translation."""
    local = [tuple(c - t for c, t in zip(v, translation)) for v in verts]
    positions = b"".join(struct.pack("<3f", *v) for v in local)
    indices = b"".join(struct.pack("<3H", *face) for face in faces)
    buffer = positions + indices
    lo = [min(v[k] for v in local) for k in range(3)]
    hi = [max(v[k] for v in local) for k in range(3)]
    doc = {
        "asset": {"version": "2.0", "generator": "shatter make_meshes.py"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0, "translation": list(translation)}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "mode": 4}]}],
        "buffers": [
            {
                "byteLength": len(buffer),
                "uri": "data:application/octet-stream;base64," + base64.b64encode(buffer).decode(),
            }
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": len(positions), "target": 34962},
            {"buffer": 0, "byteOffset": len(positions), "byteLength": len(indices), "target": 34963},
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": len(local), "type": "VEC3", "min": lo, "max": hi},
            {"bufferView": 1, "componentType": 5123, "count": 3 * len(faces), "type": "SCALAR"},
        ],
    }
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


# --- shapes --------------------------------------------------------------------------------------


def grid_box(n, half, bump=0.0, flat_bottom=False):
    """Surface of a cube [-half, half]^3 with an n x n grid of quads per face, wound outward.
    Face-interior vertices move outward by `bump` (not on the bottom face if flat_bottom).
    Returns (verts, quads)."""
    index = {}
    verts = []

    def vertex(g):
        if g not in index:
            p = [(2.0 * c - n) * half / n for c in g]
            on_face = [k for k in range(3) if g[k] in (0, n)]
            if len(on_face) == 1:
                k = on_face[0]
                if not (flat_bottom and k == 2 and g[k] == 0):
                    p[k] += bump if g[k] == n else -bump
            index[g] = len(verts)
            verts.append(tuple(p))
        return index[g]

    quads = []
    for a in range(3):
        b, c = (a + 1) % 3, (a + 2) % 3
        for side in (0, n):
            for u in range(n):
                for v in range(n):
                    corners = []
                    for du, dv in ((0, 0), (1, 0), (1, 1), (0, 1)):
                        g = [0, 0, 0]
                        g[a], g[b], g[c] = side, u + du, v + dv
                        corners.append(vertex(tuple(g)))
                    if side == 0:
                        corners.reverse()
                    quads.append(corners)
    return verts, quads


def split_quads(quads):
    tris = []
    for q in quads:
        tris.append((q[0], q[1], q[2]))
        tris.append((q[0], q[2], q[3]))
    return tris


def cube(center=(0.0, 0.0, 0.0), half=1.0, inward=False):
    verts, quads = grid_box(1, half)
    verts = [tuple(p + c for p, c in zip(v, center)) for v in verts]
    tris = split_quads(quads)
    if inward:
        tris = [(a, c, b) for a, b, c in tris]
    return verts, tris


def tetra(points):
    """Closed tetrahedron over 4 points, faces wound outward."""
    centroid = [sum(p[k] for p in points) / 4.0 for k in range(3)]
    tris = []
    for skip in range(4):
        a, b, c = [i for i in range(4) if i != skip]
        if signed(points[a], points[b], points[c], centroid) > 0:
            b, c = c, b
        tris.append((a, b, c))
    return list(points), tris


def signed(a, b, c, p):
    u = [b[k] - a[k] for k in range(3)]
    v = [c[k] - a[k] for k in range(3)]
    w = [p[k] - a[k] for k in range(3)]
    n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
    return sum(n[k] * w[k] for k in range(3))


def combine(*parts):
    verts, tris = [], []
    for v, t in parts:
        base = len(verts)
        verts += v
        tris += [tuple(i + base for i in tri) for tri in t]
    return verts, tris


def volume(verts, tris):
    total = 0.0
    for a, b, c in tris:
        total -= signed(verts[a], verts[b], verts[c], (0.0, 0.0, 0.0))
    return total / 6.0


def icosphere(levels):
    t = (1.0 + math.sqrt(5.0)) / 2.0
    verts = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t),
             (0, -1, -t), (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    verts = [normalize(v) for v in verts]
    tris = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
            (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
            (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    for _ in range(levels):
        mid = {}

        def midpoint(i, j):
            key = (min(i, j), max(i, j))
            if key not in mid:
                mid[key] = len(verts)
                verts.append(normalize([(verts[i][k] + verts[j][k]) / 2.0 for k in range(3)]))
            return mid[key]

        refined = []
        for a, b, c in tris:
            ab, bc, ca = midpoint(a, b), midpoint(b, c), midpoint(c, a)
            refined += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        tris = refined
    return verts, tris


def normalize(v):
    length = math.sqrt(sum(c * c for c in v))
    return tuple(c / length for c in v)


def lcg(seed):
    """Tiny deterministic generator in [0, 1), independent of Python's random module."""
    state = seed
    while True:
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        yield (state >> 11) / float(1 << 53)


def scanned_sphere():
    """A bumpy, noisy sphere like a coarse scan, and the same surface with four small holes."""
    verts, tris = icosphere(4)
    noise = lcg(12345)
    bumpy = []
    for x, y, z in verts:
        r = 1.0 + 0.05 * math.sin(5 * x + 1) * math.sin(4 * y + 2) * math.sin(3 * z + 0.5)
        r += 0.004 * (next(noise) - 0.5)
        # Round through float32 so the PLY file holds exactly these coordinates.
        bumpy.append(tuple(struct.unpack("<3f", struct.pack("<3f", r * x, r * y, r * z))))
    removed = set()
    for direction, radius in (((0, 0, 1), 0.10), ((1, 0.3, 0), 0.13), ((-0.5, -1, 0.2), 0.16),
                              ((0.2, 0.4, -1), 0.2)):
        d = normalize(direction)
        for i, v in enumerate(verts):
            if math.acos(max(-1.0, min(1.0, sum(v[k] * d[k] for k in range(3))))) < radius:
                removed.add(i)
    kept = [t for t in tris if not any(i in removed for i in t)]
    used = sorted({i for t in kept for i in t})
    remap = {old: new for new, old in enumerate(used)}
    holes = ([bumpy[i] for i in used], [tuple(remap[i] for i in t) for t in kept])
    check_simple_boundary(*holes)
    return (bumpy, tris), holes


def check_simple_boundary(verts, tris):
    directed = {(t[k], t[(k + 1) % 3]) for t in tris for k in range(3)}
    boundary = [e for e in directed if (e[1], e[0]) not in directed]
    starts = [e[0] for e in boundary]
    assert len(starts) == len(set(starts)), "hole boundary touches itself"
    return len(boundary)


def mobius(segments=12):
    verts, tris = [], []
    for i in range(segments):
        angle = 2 * math.pi * i / segments
        for s in (-0.3, 0.3):
            r = 1 + s * math.cos(angle / 2)
            verts.append((r * math.cos(angle), r * math.sin(angle), s * math.sin(angle / 2)))
    for i in range(segments):
        a, b = 2 * i, 2 * i + 1
        if i + 1 < segments:
            c, d = 2 * i + 2, 2 * i + 3
        else:  # the half twist: the strip closes onto itself with its sides swapped
            c, d = 1, 0
        tris += [(a, c, b), (b, c, d)]
    return verts, tris


# --- corpus --------------------------------------------------------------------------------------


def make_good():
    verts, quads = grid_box(3, 1.5, bump=0.25, flat_bottom=True)
    # The OBJ keeps the planar bottom face as quads to exercise triangulation: quad (a, b, c, d)
    # must become (a, b, c), (a, c, d), the triangles the other formats list.
    bottom = [q for q in quads if all(verts[i][2] == -1.5 for i in q)]
    triangles = split_quads([q for q in quads if q not in bottom])
    write_obj(os.path.join(GOOD, "box.obj"), verts, triangles + bottom, "bumpy 3x3x3 box, bottom face as quads")
    tris = triangles + split_quads(bottom)
    with open(os.path.join(GOOD, "box_binary.stl"), "wb") as f:
        f.write(stl_binary_bytes(verts, tris))
    write_stl_ascii(os.path.join(GOOD, "box_ascii.stl"), verts, tris)
    write_ply_ascii(os.path.join(GOOD, "box.ply"), verts, tris)
    write_ply_binary(os.path.join(GOOD, "box_binary.ply"), verts, tris)
    write_off(os.path.join(GOOD, "box.off"), verts, tris)
    write_gltf(os.path.join(GOOD, "box.gltf"), verts, tris, (1.0, -2.0, 0.5))

    outer = cube(half=2.0)
    cavity = cube(half=1.0, inward=True)
    write_obj(os.path.join(GOOD, "cube_with_cavity.obj"), *combine(outer, cavity),
              "cube [-2,2]^3 with a cube cavity [-1,1]^3 wound inward")

    closed, holes = scanned_sphere()
    write_ply_binary(os.path.join(GOOD, "scanned_sphere.ply"), *closed)
    write_ply_binary(os.path.join(GOOD, "scanned_sphere_holes.ply"), *holes)
    print("scanned sphere: %d triangles, volume %.6f; with holes: %d triangles, %d boundary edges"
          % (len(closed[1]), volume(*closed), len(holes[1]), check_simple_boundary(*holes)))


def make_bad():
    def obj(name, mesh, comment):
        write_obj(os.path.join(BAD, name), mesh[0], mesh[1], comment)

    verts, tris = cube()
    obj("open_box.obj", (verts, tris[:-2]), "unit cube missing two triangles: a hole")
    obj("nonmanifold_edge.obj", combine(
        tetra([(0, 0, 0), (1, 0, 0), (0.5, 1, 0), (0.5, 0.5, 1)]),
        tetra([(0, 0, 0), (1, 0, 0), (0.5, -1, 0), (0.5, -0.5, 1)])),
        "two tetrahedra sharing one edge (4 triangles on it)")
    shared = combine(tetra([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]),
                     tetra([(0, 0, 0), (-1, 0, 0), (0, -1, 0), (0, 0, -1)]))
    obj("bowtie_vertex.obj", shared, "two closed tetrahedra sharing one vertex (bow-tie)")
    nan_verts, nan_tris = tetra([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)])
    nan_verts[2] = (0.0, float("nan"), 0.0)
    with open(os.path.join(BAD, "nan_vertex.stl"), "wb") as f:
        f.write(stl_binary_bytes(nan_verts, nan_tris))
    with open(os.path.join(BAD, "empty.obj"), "w") as f:
        f.write("# an OBJ file without any geometry\no nothing\n")
    obj("only_degenerate.obj", ([(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0)], [(0, 1, 2), (0, 0, 3), (3, 1, 1)]),
        "collinear and repeated-index triangles only")
    obj("inverted.obj", cube(inward=True), "unit cube wound inside out")
    a, b, c = tris[4]
    obj("inconsistent_orientation.obj", (verts, tris[:4] + [(a, c, b)] + tris[5:]),
        "unit cube with one triangle wound the wrong way")
    bverts, bquads = grid_box(2, 1.0)
    top = bverts.index((0.0, 0.0, 1.0))
    bverts[top] = (0.0, 0.0, -1.5)
    obj("self_intersecting.obj", (bverts, split_quads(bquads)),
        "subdivided cube with its top centre pushed through the bottom face")
    obj("overlapping_boxes.obj", combine(cube(), cube(center=(0.5, 0.5, 0.5))), "two interpenetrating cubes")
    obj("two_boxes.obj", combine(cube(), cube(center=(3, 0, 0))), "two disjoint cubes")
    with open(os.path.join(BAD, "points.xyz"), "w") as f:
        f.write("0 0 0\n1 0 0\n0 1 0\n0 0 1\n")
    with open(os.path.join(BAD, "truncated.stl"), "wb") as f:
        f.write(stl_binary_bytes(verts, tris)[:84 + 50 * 7 + 20])
    obj("huge_coordinates.obj", tetra([(0, 0, 0), (1e30, 0, 0), (0, 1, 0), (0, 0, 1)]),
        "tetrahedron with an absurdly large coordinate")
    a, b, c = tris[3]
    obj("duplicate_triangles.obj", (verts, tris + [(b, c, a)]), "unit cube with one triangle listed twice")
    noise = lcg(99)
    with open(os.path.join(BAD, "garbage.obj"), "wb") as f:
        f.write(bytes(int(next(noise) * 256) for _ in range(512)))
    obj("mobius.obj", mobius(), "a Moebius strip: open and not orientable")
    obj("ball_in_cavity.obj", combine(cube(half=3.0), cube(half=2.0, inward=True), cube(half=1.0)),
        "hollow cube with a separate cube loose inside its cavity")
    with open(os.path.join(BAD, "bad_index.obj"), "w") as f:
        f.write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n")
    with open(os.path.join(BAD, "bad_index.ply"), "w") as f:
        f.write(ply_header("ascii", 3, 1) + "0 0 0\n1 0 0\n0 1 0\n3 0 1 9\n")
    with open(os.path.join(BAD, "truncated.off"), "w") as f:
        f.write("OFF\n4 4 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n")


if __name__ == "__main__":
    os.makedirs(GOOD, exist_ok=True)
    os.makedirs(BAD, exist_ok=True)
    make_good()
    make_bad()
