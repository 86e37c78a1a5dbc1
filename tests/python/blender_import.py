"""Blender (the bpy package) imports a USD file crease wrote and prints, as
one JSON line after "JSON", the scene's frame range and, for each mesh at
FRAME, its vertex and polygon counts, polygon sizes, UV layers and its
first and last vertices in Blender's world (Z up).

usage: python3 blender_import.py LAYER FRAME
"""

import json
import sys

import bpy

path, frame = sys.argv[-2], int(sys.argv[-1])
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.wm.usd_import(filepath=path)
scene = bpy.context.scene
out = {"frame_start": scene.frame_start, "frame_end": scene.frame_end, "fps": scene.render.fps, "objects": {}}
scene.frame_set(frame)
deps = bpy.context.evaluated_depsgraph_get()
for ob in scene.objects:
    if ob.type != 'MESH':
        continue
    ev = ob.evaluated_get(deps)
    me = ev.to_mesh()
    mw = ev.matrix_world
    out["objects"][ob.name] = {
        "vertices": len(me.vertices), "polygons": len(me.polygons),
        "sides": sorted(set(len(p.vertices) for p in me.polygons)),
        "uv": len(me.uv_layers),
        "first": list(mw @ me.vertices[0].co), "last": list(mw @ me.vertices[-1].co),
        "hidden": ev.hide_get() or ev.hide_viewport,
    }
    ev.to_mesh_clear()
print("JSON" + json.dumps(out))
