print("stress-test: not built yet")
