"""What mprules shows people: what a variant changes, the handout, charts, exports to online tables and the codes page."""
