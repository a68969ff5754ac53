/// Synthetic bursts with ground truth (in progress).
public enum SceneGenPlaceholder {}
