"""Opens a run's cloth.usda with Pixar's USD library (the usd-core package)
and prints what tests/usd.rs checks, as JSON: the stage's time codes and
units, the cloth's faces and texture coordinates against the OBJ it was
made from, its points at every time code against the run's OBJ frames, and
each obstacle's samples and visibility.

usage: python3 usd_check.py RUN_DIR CLOTH_OBJ
"""

import json
import sys
from pathlib import Path

from pxr import Usd, UsdGeom


def read_obj(path):
    """Positions, and the faces' vertex and vt indices (0-based) as lists."""
    points, faces, uvs, texcoords = [], [], [], []
    for line in Path(path).read_text().splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "v":
            points.append(tuple(float(w) for w in words[1:4]))
        elif words[0] == "vt":
            texcoords.append(tuple(float(w) for w in words[1:3]))
        elif words[0] == "f":
            corners = [w.split("/") for w in words[1:]]
            faces.append([int(c[0]) - 1 for c in corners])
            if all(len(c) > 1 and c[1] for c in corners):
                uvs.append([int(c[1]) - 1 for c in corners])
    return points, faces, uvs, texcoords


def main():
    run, cloth_obj = Path(sys.argv[1]), sys.argv[2]
    stage = Usd.Stage.Open(str(run / "cloth.usda"))
    out = {
        "start": stage.GetStartTimeCode(),
        "end": stage.GetEndTimeCode(),
        "fps": stage.GetTimeCodesPerSecond(),
        "up": UsdGeom.GetStageUpAxis(stage),
        "meters_per_unit": UsdGeom.GetStageMetersPerUnit(stage),
    }
    cloth = UsdGeom.Mesh(stage.GetPrimAtPath("/crease/cloth"))
    _, faces, uvs, texcoords = read_obj(cloth_obj)
    out["counts_match"] = list(cloth.GetFaceVertexCountsAttr().Get()) == [len(f) for f in faces]
    out["indices_match"] = list(cloth.GetFaceVertexIndicesAttr().Get()) == [v for f in faces for v in f]
    st = UsdGeom.PrimvarsAPI(cloth).GetPrimvar("st")
    out["st_interpolation"] = st.GetInterpolation()
    out["st_match"] = [tuple(p) for p in st.Get()] == texcoords and list(st.GetIndices()) == [
        t for f in uvs for t in f
    ]
    points = cloth.GetPointsAttr()
    codes = points.GetTimeSamples()
    out["codes"] = codes
    worst = 0.0
    for k, code in enumerate(codes):
        frame, _, _, _ = read_obj(run / "frames" / f"{k:05d}.obj")
        sample = points.Get(code)
        if len(sample) != len(frame):
            out["point_count_mismatch"] = [k, len(sample), len(frame)]
            break
        for p, q in zip(sample, frame):
            worst = max(worst, max(abs(p[i] - q[i]) for i in range(3)))
    out["points"] = len(points.Get(codes[0]))
    out["worst"] = worst
    obstacles = {}
    for prim in stage.GetPrimAtPath("/crease/obstacles").GetChildren():
        mesh = UsdGeom.Mesh(prim)
        xf = UsdGeom.Xformable(prim)
        obstacles[prim.GetName()] = {
            "point_samples": len(mesh.GetPointsAttr().GetTimeSamples()),
            "points": len(mesh.GetPointsAttr().Get(codes[-1])),
            "hidden": [c for c in codes if UsdGeom.Imageable(prim).ComputeVisibility(c) == "invisible"],
            "translation": [list(xf.ComputeLocalToWorldTransform(c).ExtractTranslation()) for c in codes],
        }
    out["obstacles"] = obstacles
    print(json.dumps(out))


main()
