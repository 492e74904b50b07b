/// Prints a figure a test measured, in one recognisable line (the suite's note quotes them).
func figure(_ test: String, _ text: String) {
    print("figure [\(test)]: \(text)")
}
