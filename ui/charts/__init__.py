"""Charts drawn with pyqtgraph: the analysis view's replay charts and the player profile's."""
