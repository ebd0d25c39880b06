"""The Queue tab: its pane, table, filters, filter screen and case-detail builders."""
