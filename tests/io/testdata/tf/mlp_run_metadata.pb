
Õ
a
,/job:localhost/replica:0/task:0/device:CPU:0
_SOURCEè (
xé (
labelsé (
x
,/job:localhost/replica:0/task:0/device:GPU:0

fc1/MatMulí }(~
fc1/ReluÐ (pèxü§

fc2/MatMulò
 Z([
;
/device:GPU:0/stream:all
fc1/MatMul:MatMul°	È ô(õ
9
/device:GPU:0/stream:7
fc1/MatMul:MatMul°	È ô(õ