"""The Hafıza tab: the memory pane and its page reader."""
