#!/usr/bin/env python3
"""Prints the procedural assets' sizes beside TVCG Table 1 (the paper's values are copied below)."""
import json
import sys

# TVCG 2013 Table 1: triangles, tetrahedra, points (surface vertices + interior nodes).
PAPER = {
    "piggy_bank": (9722, 20807, 5870),
    "brick": (468, 594, 224),
    "plate": (5392, 8617, 2711),
    "shelf": (4652, 10200, 2989),
    "ball": None,
}
TRIANGLE_TOLERANCE, TET_TOLERANCE = 0.15, 0.25


def ratio(ours, paper):
    return f"{ours:>7,} / {paper:>7,} ({100.0 * (ours - paper) / paper:+5.1f} %)"


def main(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    print(f"{'object':<11} {'triangles ours / TVCG':<30} {'tetrahedra ours / TVCG':<30} {'points ours / TVCG':<30}")
    ok = True
    for row in rows:
        name = row["name"]
        paper = PAPER.get(name)
        if paper is None:
            print(f"{name:<11} {row['triangles']:>7,}{'':<23} {row['tetrahedra']:>7,}{'':<23} {row['points']:>7,}")
            continue
        tri_ok = abs(row["triangles"] - paper[0]) <= TRIANGLE_TOLERANCE * paper[0]
        tet_ok = abs(row["tetrahedra"] - paper[1]) <= TET_TOLERANCE * paper[1]
        ok = ok and tri_ok and tet_ok
        print(f"{name:<11} {ratio(row['triangles'], paper[0]):<30} {ratio(row['tetrahedra'], paper[1]):<30} "
              f"{ratio(row['points'], paper[2]):<30}")
    print(f"tolerances: triangles ±{TRIANGLE_TOLERANCE:.0%}, tetrahedra ±{TET_TOLERANCE:.0%}: "
          + ("all within" if ok else "SOME OUTSIDE"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
