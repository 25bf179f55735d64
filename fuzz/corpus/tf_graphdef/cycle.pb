

aRelub

bRelua:0