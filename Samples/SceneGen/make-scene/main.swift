print("make-scene: in progress")
