import SybilNet

extension WarmUpManager: ChatWarmUp {
    /// Starts a health check unless the backend is warm or one is running.
    public func requestWarmUp(_ trigger: ChatWarmUpTrigger) {
        switch trigger {
        case .returnedToForeground: self.trigger(.returnedToForeground)
        case .switchedTab: self.trigger(.switchedTab)
        case .enteredChat: self.trigger(.enteredChat)
        }
    }
}
