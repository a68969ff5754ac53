import Stacker
print("stack: in progress")
