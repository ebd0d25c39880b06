"""The Raporlar tab: the reports pane and its charts."""
