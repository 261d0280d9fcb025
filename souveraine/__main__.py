from souveraine.cli import main

main()
