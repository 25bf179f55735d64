

aConst"/device:GPU:*
*
bRelua^a"@a*
_class

loc:@a