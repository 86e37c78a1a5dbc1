"""Blender (the bpy package) makes a character's leg as an artist would:
a tube skinned to a two-bone armature by automatic weights, the shin bent
80 degrees over frames 1 to 13 at 24 fps, then exports the leg's animation
as USD (leg.usdc, armatures off: the deformed points baked per frame) and
as an OBJ sequence (leg0001.obj, ...), both into OUT_DIR.

usage: python3 blender_leg.py OUT_DIR
"""

import math
import sys

import bpy

out = sys.argv[-1]
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.frame_start, scene.frame_end = 1, 13
scene.render.fps = 24
# A leg: an open tube of radius 6 cm, 85 cm long, along z, in quads; the
# armature's knee is at z = 0.4.
rings, segs = 22, 16
verts = [(0.06 * math.cos(2 * math.pi * i / segs), 0.06 * math.sin(2 * math.pi * i / segs), -0.05 + 0.85 * j / (rings - 1))
         for j in range(rings) for i in range(segs)]
faces = [(j * segs + i, j * segs + (i + 1) % segs, (j + 1) * segs + (i + 1) % segs, (j + 1) * segs + i)
         for j in range(rings - 1) for i in range(segs)]
me = bpy.data.meshes.new("Leg")
me.from_pydata(verts, [], faces)
leg = bpy.data.objects.new("Leg", me)
scene.collection.objects.link(leg)
bpy.context.view_layer.objects.active = leg
bpy.ops.object.armature_add(location=(0, 0, 0.8))
rig = bpy.context.object
rig.name = "Rig"
bpy.ops.object.mode_set(mode='EDIT')
thigh = rig.data.edit_bones[0]
thigh.name = "thigh"
thigh.head, thigh.tail = (0, 0, 0), (0, 0, -0.4)
shin = rig.data.edit_bones.new("shin")
shin.head, shin.tail, shin.parent = (0, 0, -0.4), (0, 0, -0.85), thigh
bpy.ops.object.mode_set(mode='OBJECT')
leg.select_set(True)
rig.select_set(True)
bpy.context.view_layer.objects.active = rig
bpy.ops.object.parent_set(type='ARMATURE_AUTO')
bpy.ops.object.mode_set(mode='POSE')
pb = rig.pose.bones["shin"]
pb.rotation_mode = 'XYZ'
for frame, angle in [(1, 0.0), (13, 80.0)]:
    pb.rotation_euler = (math.radians(angle), 0, 0)
    pb.keyframe_insert("rotation_euler", frame=frame)
bpy.ops.object.mode_set(mode='OBJECT')
bpy.ops.object.select_all(action='DESELECT')
leg.select_set(True)
bpy.context.view_layer.objects.active = leg
bpy.ops.wm.usd_export(filepath=out + "/leg.usdc", selected_objects_only=True, export_animation=True, export_armatures=False, export_materials=False)
bpy.ops.wm.obj_export(filepath=out + "/leg.obj", export_selected_objects=True, export_animation=True, start_frame=1, end_frame=13, export_materials=False, export_uv=False, export_normals=False)
