<?php
// Debian's defaults (roundcube-core), so that this folder alone is the config path.
require '/etc/roundcube/defaults.inc.php';
