"""The chat: controller (runtime events → Qt signals), transcript view, blocks and composer."""
