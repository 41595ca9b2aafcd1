import SybilCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

exit(await SybilCommandLine.run(Array(CommandLine.arguments.dropFirst()), io: .live))
