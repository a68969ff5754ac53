print("stack-bench: in progress")
