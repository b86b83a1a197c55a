"""Analysis: settlement, statistics, claims, round positions, effect of removal, counting.

Every function returns plain result objects; nothing here renders text or writes a file.
"""
