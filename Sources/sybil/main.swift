import SybilCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

exit(SybilCommandLine.run(Array(CommandLine.arguments.dropFirst()), io: .live))
